/**
 * Model configuration as the interface reference writes it: a `provider/model` string, or
 * exactly one of four object shapes (Generic, Vertex, Azure with an Entra token, Azure with an
 * API key), each refusing unknown properties. The library and the service parse with these.
 */
import { z } from "zod";
import { prefixedModelName } from "./legacyModelNames.js";

const Headers = z
  .record(z.string(), z.string())
  .describe("Extra HTTP headers on every model request; credential-like ones are redacted.");
const Url = z.url({ error: "expected an absolute URL" });
// Trimmed: a blank key would let a provider package fall back to the environment's own.
const ApiKey = z
  .string()
  .trim()
  .min(1)
  .describe("The provider's key; wins over its environment variable. Redacted everywhere.");
const BaseUrl = Url.describe(
  "The provider's endpoint, e.g. an OpenAI-compatible server (Ollama, vLLM, LM Studio: no key needed).",
);

/** Providers a Generic shape (or a `provider/model` string) may name. */
export const GENERIC_PROVIDERS = ["openai", "anthropic", "google", "microsoft", "bedrock"] as const;
/** Every provider this layer knows; `vertex` and `azure` come with shapes of their own. */
export const PROVIDERS = [...GENERIC_PROVIDERS, "vertex", "azure"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export const ModelNameSchema = z
  .string({ error: 'expected a model name such as "openai/gpt-4.1-mini"' })
  .trim()
  .min(1, { error: 'expected a model name such as "openai/gpt-4.1-mini"' })
  // It becomes part of a provider's URL path: nothing that moves or ends that path.
  .refine((name) => !/[\s?#%\\]/.test(name) && !/(^|\/)\.\.?(\/|$)/.test(name), {
    error: "expected a model name without spaces, ?, #, %, \\ or . / .. segments",
  })
  .describe('`"provider/model"`, e.g. `"openai/gpt-4.1-mini"`; a bare name takes `provider`.');

export const GenericModelConfigSchema = z.strictObject({
  modelName: ModelNameSchema,
  apiKey: ApiKey.optional(),
  baseURL: BaseUrl.optional(),
  headers: Headers.optional(),
  openaiEndpointFormat: z
    .enum(["responses", "chat"])
    .optional()
    .describe("OpenAI's Responses API (default) or Chat Completions (`chat`)."),
  provider: z.enum(GENERIC_PROVIDERS).optional().describe("The provider of a bare `modelName`."),
});

export const GoogleServiceAccountCredentialsSchema = z.strictObject({
  private_key: z.string().min(1),
  client_email: z.string().min(1),
  type: z.literal("service_account").optional(),
  project_id: z.string().optional(),
  private_key_id: z.string().optional(),
  client_id: z.string().optional(),
  universe_domain: z.string().optional(),
  auth_uri: Url.optional(),
  token_uri: Url.optional(),
  auth_provider_x509_cert_url: Url.optional(),
  client_x509_cert_url: Url.optional(),
});

export const GoogleServiceAccountAuthSchema = z.strictObject({
  type: z.literal("googleServiceAccount"),
  credentials: GoogleServiceAccountCredentialsSchema,
  scopes: z.union([z.string(), z.array(z.string())]).optional(),
  projectId: z.string().optional(),
  universeDomain: z.string().optional(),
});

export const VertexModelProviderOptionsSchema = z.strictObject({
  vertex: z.strictObject({
    // Names, not URLs: they are placed inside the endpoint's host name.
    project: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9.:_-]{0,62}$/, {
      error: "expected a Google Cloud project id (letters, digits, hyphens; no / ? # or spaces)",
    }),
    location: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, {
      error: 'expected a Google Cloud location such as "us-central1" or "global"',
    }),
    baseURL: Url.optional(),
    headers: Headers.optional(),
  }),
});

export const VertexModelConfigSchema = z.strictObject({
  modelName: ModelNameSchema,
  apiKey: ApiKey.optional(),
  baseURL: BaseUrl.optional(),
  headers: Headers.optional(),
  provider: z.literal("vertex").describe("Names this shape."),
  auth: GoogleServiceAccountAuthSchema.describe(
    '`{ type: "googleServiceAccount", credentials: { client_email, private_key, … }, scopes?, projectId? }`.',
  ),
  providerOptions: VertexModelProviderOptionsSchema.describe(
    "`{ vertex: { project, location, baseURL?, headers? } }`.",
  ),
});

export const AzureModelProviderOptionsSchema = z.strictObject({
  azure: z.strictObject({
    // A name, not a URL: it becomes the host `<resourceName>.openai.azure.com`.
    resourceName: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/, {
        error: "expected an Azure resource name (letters, digits and hyphens, 64 at most)",
      })
      .optional(),
    baseURL: Url.optional(),
    apiVersion: z.string().min(1).optional(),
    useDeploymentBasedUrls: z.boolean().optional(),
    headers: Headers.optional(),
  }),
});

export const AzureEntraIdAuthSchema = z
  .strictObject({
    type: z.literal("azureEntraId"),
    token: z.string().min(1),
  })
  .describe('`{ type: "azureEntraId", token }`: a bearer token instead of an api-key header.');

const AzureProviderOptions = AzureModelProviderOptionsSchema.describe(
  "`{ azure: { resourceName?, baseURL?, apiVersion?, useDeploymentBasedUrls?, headers? } }`; without resourceName or baseURL, `AZURE_RESOURCE_NAME`.",
);

export const AzureEntraModelConfigSchema = z.strictObject({
  modelName: ModelNameSchema,
  baseURL: BaseUrl.optional(),
  headers: Headers.optional(),
  provider: z.literal("azure").describe("Names this shape."),
  providerOptions: AzureProviderOptions,
  auth: AzureEntraIdAuthSchema,
});

export const AzureKeyModelConfigSchema = z.strictObject({
  modelName: ModelNameSchema,
  apiKey: ApiKey.optional().describe(
    "The Azure key; wins over `AZURE_API_KEY`. Redacted everywhere.",
  ),
  baseURL: BaseUrl.optional(),
  headers: Headers.optional(),
  provider: z.literal("azure").describe("Names this shape."),
  providerOptions: AzureProviderOptions,
});

/** Exactly one of the four shapes: each refuses what the others have. */
export const ModelConfigSchema = z.union(
  [
    GenericModelConfigSchema,
    VertexModelConfigSchema,
    AzureEntraModelConfigSchema,
    AzureKeyModelConfigSchema,
  ],
  {
    error:
      'expected a model object of one of four shapes: { modelName, apiKey?, baseURL?, headers?, openaiEndpointFormat?, provider? }, Vertex { modelName, provider: "vertex", auth, providerOptions }, or Azure { modelName, provider: "azure", providerOptions, apiKey? | auth }',
  },
);
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

/** What `model` options take: a `provider/model` string or a ModelConfig. */
export const ModelConfigurationSchema = z.union([ModelNameSchema, ModelConfigSchema], {
  error: 'expected a "provider/model" string or a model configuration object',
});
export type ModelConfiguration = z.input<typeof ModelConfigurationSchema>;

/**
 * A per-call model named by string for the provider of the client's model object takes that
 * object's key, baseURL and headers: `"openai/gpt-4.1"` next to `{ modelName: "openai/…",
 * apiKey }` means the same account.
 */
export function inheritCredentials(
  override: ModelConfiguration | undefined,
  base: ModelConfiguration | undefined,
): ModelConfiguration | undefined {
  if (typeof override !== "string" || base === undefined || typeof base === "string") {
    return override;
  }
  // A name of the older form (no provider) counts as its provider's, as it is resolved.
  const providerOf = (name: string) => (prefixedModelName(name) ?? name).split("/")[0];
  const provider = providerOf(override);
  const baseProvider = ("provider" in base && base.provider) || providerOf(base.modelName);
  return provider === baseProvider ? { ...base, modelName: override } : override;
}
