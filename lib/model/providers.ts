/**
 * The provider switch: a model configuration becomes an AI SDK language model. The only file
 * that imports the provider packages (the computer-use adapters implement `@ai-sdk/provider`'s
 * interface themselves), each at the first call of one of its models (deferredModel.ts).
 * Keys come from the configuration or the provider's usual environment variable; `baseURL` and
 * `headers` route any provider through a proxy or an OpenAI-compatible server.
 */
import type { AzureOpenAIProviderSettings } from "@ai-sdk/azure";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { type LanguageModel, type Tool, tool } from "ai";
import { z } from "zod";
import {
  InvalidAISDKModelFormatError,
  MissingLLMConfigurationError,
  UnsupportedModelError,
} from "../errors.js";
import { secretHeaderValues, urlSecrets } from "../secrets.js";
import { computerUseOf } from "./capabilities.js";
import {
  type ModelConfig,
  type ModelConfiguration,
  ModelConfigurationSchema,
  PROVIDERS,
  type ProviderName,
} from "./config.js";
import { deferredModel } from "./deferredModel.js";
import { googleComputerUseModel } from "./googleComputerUse.js";
import { legacyNameWarning, prefixedModelName } from "./legacyModelNames.js";
import { openaiComputerUseModel } from "./openaiComputerUse.js";

export interface ResolvedModel {
  /** `provider/model`, for logs, metrics and inference files. */
  label: string;
  provider: ProviderName | "custom";
  model: LanguageModel;
  /** Values of this configuration that must never be written anywhere. */
  secrets: string[];
  /** Set when the name was of the reference's older form: the line to log once. */
  deprecation?: string;
}

/** The environment variable each provider's key is read from when the configuration has none. */
export const KEY_VARIABLES = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  google: "GOOGLE_GENERATIVE_AI_API_KEY",
  microsoft: "MICROSOFT_API_KEY",
} as const;

/** A key OpenAI-compatible servers (Ollama, vLLM, LM Studio) accept when they need none. */
const NO_KEY = "not-needed";

type Env = Record<string, string | undefined>;

export function resolveModel(
  configuration: ModelConfiguration,
  env: Env = process.env,
  /** Every HTTP request of the model (a service's: no redirects, caller endpoints pinned). */
  fetch?: typeof globalThis.fetch,
): ResolvedModel {
  const parsed = ModelConfigurationSchema.parse(configuration);
  const given: ModelConfig = typeof parsed === "string" ? { modelName: parsed } : parsed;
  // A bare name with a baseURL or a provider is read as before; only a bare name alone is old.
  const legacy = given.provider || given.baseURL ? undefined : prefixedModelName(given.modelName);
  if (!legacy) return resolveConfig(given, env, fetch);
  return {
    ...resolveConfig({ ...given, modelName: legacy }, env, fetch),
    deprecation: legacyNameWarning(given.modelName, legacy),
  };
}

function resolveConfig(
  config: ModelConfig,
  env: Env,
  fetch: typeof globalThis.fetch | undefined,
): ResolvedModel {
  const { provider, modelId } = providerOf(config);
  const label = `${provider}/${modelId}`;
  const secrets: string[] = [];
  const keep = <T extends string | undefined>(value: T): T => {
    if (value) secrets.push(value);
    return value;
  };
  const headers = config.headers;
  const baseURL = config.baseURL;
  // Credentials in headers (a proxy's token) and in URLs (`?api_key=`) are never written anywhere.
  for (const value of secretHeaderValues(headers)) keep(value);
  for (const value of urlSecrets(baseURL)) keep(value);
  if ("providerOptions" in config) {
    const options =
      "vertex" in config.providerOptions
        ? config.providerOptions.vertex
        : config.providerOptions.azure;
    for (const value of secretHeaderValues(options.headers)) keep(value);
    for (const value of urlSecrets(options.baseURL)) keep(value);
  }

  switch (
    config.provider === "vertex" ? "vertex" : config.provider === "azure" ? "azure" : provider
  ) {
    case "openai":
    case "microsoft": {
      const generic = config as Extract<ModelConfig, { openaiEndpointFormat?: unknown }>;
      if (provider === "microsoft" && !baseURL) {
        throw new MissingLLMConfigurationError("model.baseURL", "microsoft");
      }
      // A server named only by its baseURL is someone else's: it gets no OpenAI key from the
      // environment, only one given in the configuration.
      const inferred = !config.provider && !config.modelName.startsWith(`${provider}/`);
      const keyOwner = provider === "microsoft" ? "microsoft" : "openai";
      const apiKey = keep(keyFor(keyOwner, config, inferred ? {} : env, baseURL));
      // Read here rather than by the package, so that our computer-use adapter goes there too.
      const endpoint =
        baseURL ?? (provider === "openai" ? envEndpoint(env.OPENAI_BASE_URL) : undefined);
      for (const value of urlSecrets(endpoint)) keep(value);
      // computer-use-preview speaks a protocol the AI SDK has no binding for: our own adapter.
      if (provider === "openai" && /computer-use/.test(modelId)) {
        const model = openaiComputerUseModel({
          modelId,
          apiKey,
          baseURL: endpoint,
          headers,
          fetch,
        });
        return { label, provider, secrets, model };
      }
      // Responses API by default; chat completions for endpoints that only have those.
      const chat = provider === "microsoft" || generic.openaiEndpointFormat === "chat";
      const model = deferredModel(chat ? "openai.chat" : "openai.responses", modelId, async () => {
        const { createOpenAI } = await import("@ai-sdk/openai");
        const openai = createOpenAI({ apiKey, baseURL: endpoint, headers, fetch });
        return chat ? openai.chat(modelId) : openai(modelId);
      });
      return { label, provider, secrets, model };
    }
    case "anthropic": {
      const apiKey = keep(keyFor("anthropic", config, env, baseURL));
      const endpoint = baseURL ?? envEndpoint(env.ANTHROPIC_BASE_URL);
      for (const value of urlSecrets(endpoint)) keep(value);
      return {
        label,
        provider,
        secrets,
        model: deferredModel("anthropic.messages", modelId, async () => {
          const { createAnthropic } = await import("@ai-sdk/anthropic");
          return createAnthropic({ apiKey, baseURL: endpoint, headers, fetch })(modelId);
        }),
      };
    }
    case "google": {
      const apiKey = keep(keyFor("google", config, env, baseURL));
      const plain = deferredModel("google.generative-ai", modelId, async () => {
        const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
        return createGoogleGenerativeAI({ apiKey, baseURL, headers, fetch })(modelId);
      });
      // Gemini's computer-use models: our own adapter, as for OpenAI's, for a call that drives
      // the screen; they take ordinary tools and structured output too (the dom agent, act).
      if (/computer-use/.test(modelId)) {
        const screen = googleComputerUseModel({ modelId, apiKey, baseURL, headers, fetch });
        return { label, provider, secrets, model: screenOrPlain(screen, plain) };
      }
      return { label, provider, secrets, model: plain };
    }
    case "bedrock":
      return { label, provider, secrets, model: bedrock(config, modelId, env, keep, fetch) };
    case "vertex":
      return { label, provider, secrets, model: vertex(config, modelId, keep, fetch) };
    case "azure":
      return { label, provider, secrets, model: azure(config, modelId, env, keep, fetch) };
    default:
      throw new UnsupportedModelError(config.modelName, [...PROVIDERS]);
  }
}

/** A call that carries the `computer` tool goes to `screen`, any other to `plain`. */
function screenOrPlain(screen: LanguageModelV3, plain: LanguageModelV3): LanguageModelV3 {
  const drives = (options: LanguageModelV3CallOptions) =>
    (options.tools ?? []).some((t) => t.name === "computer");
  return {
    specificationVersion: "v3",
    provider: plain.provider,
    modelId: plain.modelId,
    get supportedUrls() {
      return plain.supportedUrls;
    },
    doGenerate: (options) => (drives(options) ? screen : plain).doGenerate(options),
    doStream: (options) => (drives(options) ? screen : plain).doStream(options),
  };
}

/**
 * The provider's computer-use tool for this model and display: Anthropic's versioned tool
 * through the AI SDK; for OpenAI's computer-use models a placeholder our adapter turns into
 * `computer_use_preview`. Undefined when the model speaks no such protocol.
 */
export async function computerToolFor(
  model: ModelConfiguration,
  display: { width: number; height: number },
): Promise<Tool | undefined> {
  const protocol = computerUseOf(model);
  if (protocol?.provider === "anthropic") {
    const { anthropic } = await import("@ai-sdk/anthropic");
    const size = { displayWidthPx: display.width, displayHeightPx: display.height };
    if (protocol.version === "computer_20251124") return anthropic.tools.computer_20251124(size);
    if (protocol.version === "computer_20241022") return anthropic.tools.computer_20241022(size);
    return anthropic.tools.computer_20250124(size);
  }
  if (protocol?.provider === "openai" || protocol?.provider === "google") {
    return tool({
      description: "the computer (sent as the provider's own computer-use tool)",
      inputSchema: z.looseObject({}),
    });
  }
  return undefined;
}

/** `provider/model` → its parts; a bare name with a baseURL is an OpenAI-compatible server's. */
function providerOf(config: ModelConfig): { provider: ProviderName; modelId: string } {
  const name = config.modelName;
  const slash = name.indexOf("/");
  const prefix = slash > 0 ? name.slice(0, slash) : "";
  const rest = slash > 0 ? name.slice(slash + 1) : name;
  if (config.provider) {
    return { provider: config.provider, modelId: prefix === config.provider ? rest : name };
  }
  if ((PROVIDERS as readonly string[]).includes(prefix)) {
    if (!rest) throw new InvalidAISDKModelFormatError(name);
    return { provider: prefix as ProviderName, modelId: rest };
  }
  if (config.baseURL) return { provider: "openai", modelId: name };
  if (slash <= 0 || !rest) throw new InvalidAISDKModelFormatError(name);
  throw new UnsupportedModelError(name, [...PROVIDERS]);
}

/**
 * An operator's endpoint variable (`OPENAI_BASE_URL`, …), read from the environment the caller
 * passed rather than by the provider package from `process.env`: a configuration given no
 * environment (a caller's own endpoint on the service) gets none of the operator's endpoints.
 */
function envEndpoint(value: string | undefined): string | undefined {
  return value?.trim() || undefined;
}

function keyFor(
  provider: keyof typeof KEY_VARIABLES,
  config: ModelConfig,
  env: Env,
  baseURL: string | undefined,
): string {
  const given = "apiKey" in config ? config.apiKey : undefined;
  const fromEnv = env[KEY_VARIABLES[provider]];
  const key = given ?? fromEnv;
  if (key) return key;
  // A proxy or a local server may need no key at all.
  if (baseURL) return NO_KEY;
  throw new MissingLLMConfigurationError(KEY_VARIABLES[provider], provider);
}

function bedrock(
  config: ModelConfig,
  modelId: string,
  env: Env,
  keep: <T extends string | undefined>(v: T) => T,
  fetch: typeof globalThis.fetch | undefined,
): LanguageModel {
  const apiKey = keep(
    ("apiKey" in config ? config.apiKey : undefined) ?? env.AWS_BEARER_TOKEN_BEDROCK,
  );
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = keep(env.AWS_SECRET_ACCESS_KEY);
  keep(env.AWS_SESSION_TOKEN);
  if (!apiKey && !(accessKeyId && secretAccessKey)) {
    throw new MissingLLMConfigurationError(
      "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK)",
      "bedrock",
    );
  }
  const settings = {
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1",
    ...(apiKey
      ? { apiKey }
      : { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN }),
    baseURL:
      config.baseURL ??
      envEndpoint(env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME) ??
      envEndpoint(env.AWS_ENDPOINT_URL),
    headers: config.headers,
    fetch,
  };
  return deferredModel("amazon-bedrock", modelId, async () => {
    const { createAmazonBedrock } = await import("@ai-sdk/amazon-bedrock");
    return createAmazonBedrock(settings)(modelId);
  });
}

function vertex(
  config: ModelConfig,
  modelId: string,
  keep: <T extends string | undefined>(v: T) => T,
  fetch: typeof globalThis.fetch | undefined,
): LanguageModel {
  if (config.provider !== "vertex") {
    throw new MissingLLMConfigurationError(
      'the Vertex shape: { modelName, provider: "vertex", auth, providerOptions: { vertex: { project, location } } }',
      "vertex",
    );
  }
  const { auth, providerOptions } = config;
  keep(auth.credentials.private_key);
  keep(config.apiKey);
  const options = providerOptions.vertex;
  const settings = {
    project: options.project,
    location: options.location,
    baseURL: options.baseURL ?? config.baseURL,
    headers: { ...config.headers, ...options.headers },
    fetch,
    // Given, or "": the package would otherwise read GOOGLE_VERTEX_API_KEY itself ("express
    // mode"), whoever's endpoint this is.
    apiKey: config.apiKey ?? "",
    googleAuthOptions: {
      credentials: auth.credentials,
      scopes: auth.scopes ?? ["https://www.googleapis.com/auth/cloud-platform"],
      projectId: auth.projectId,
      universeDomain: auth.universeDomain,
    },
  };
  return deferredModel("google.vertex.chat", modelId, async () => {
    const { createVertex } = await import("@ai-sdk/google-vertex");
    return createVertex(settings)(modelId);
  });
}

function azure(
  config: ModelConfig,
  modelId: string,
  env: Env,
  keep: <T extends string | undefined>(v: T) => T,
  fetch: typeof globalThis.fetch = globalThis.fetch,
): LanguageModel {
  if (config.provider !== "azure") {
    throw new MissingLLMConfigurationError(
      'the Azure shape: { modelName, provider: "azure", providerOptions: { azure: { resourceName } }, apiKey | auth }',
      "azure",
    );
  }
  const options = config.providerOptions.azure;
  const baseURL = options.baseURL ?? config.baseURL;
  const resourceName = options.resourceName ?? env.AZURE_RESOURCE_NAME;
  if (!baseURL && !resourceName) {
    throw new MissingLLMConfigurationError(
      "model.providerOptions.azure.resourceName (or AZURE_RESOURCE_NAME, or a baseURL)",
      "azure",
    );
  }
  const headers = { ...config.headers, ...options.headers };
  const common = {
    resourceName,
    baseURL,
    apiVersion: options.apiVersion,
    useDeploymentBasedUrls: options.useDeploymentBasedUrls,
    fetch,
  };
  const deferred = (settings: AzureOpenAIProviderSettings) =>
    deferredModel("azure.responses", modelId, async () => {
      const { createAzure } = await import("@ai-sdk/azure");
      return createAzure({ ...common, ...settings })(modelId);
    });
  if ("auth" in config) {
    // An Entra ID token goes as a bearer token, and no api-key header goes at all.
    const token = keep(config.auth.token);
    return deferred({
      apiKey: "entra-id",
      headers: { ...headers, authorization: `Bearer ${token}` },
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        const sent = new Headers(init?.headers);
        sent.delete("api-key");
        return fetch(input, { ...init, headers: sent });
      },
    });
  }
  const apiKey = keep(config.apiKey ?? env.AZURE_API_KEY);
  if (!apiKey) throw new MissingLLMConfigurationError("AZURE_API_KEY", "azure");
  return deferred({ apiKey, headers });
}
