/**
 * The one key derivation of every action cache (local, committed, and the service's): what
 * makes two calls the same call. In: the method, the instruction, the page's URL (query
 * parameters sorted, volatile ones dropped), the variables' names (never their values), the
 * options that change the outcome, and a signature of the model without its secrets. The
 * version is part of the key: an entry written under another version is a miss, never an error.
 */
import { createHash } from "node:crypto";
import type { AgentExecuteRequest } from "../api/operations.js";
import type { ModelConfiguration } from "../model/config.js";

/** Raised when what goes into a key, or what a key means, changes. */
export const CACHE_KEY_VERSION = 1;

/** Query parameters that change on every visit without changing the page (tracking, ads). */
export const VOLATILE_PARAMETERS = [
  /^utm_/i,
  /^(?:fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|twclid|ttclid|mc_cid|mc_eid|_ga|_gl)$/i,
];

export interface KeyInput {
  method: "act" | "observe" | "agent";
  instruction: string;
  url: string;
  /** The variables the call was given: only their names go into the key. */
  variables?: Record<string, unknown>;
  /** Options that change what the call does (a scope, an agent's mode), as plain data. */
  options?: Record<string, unknown>;
  model?: KeyModel;
  systemPrompt?: string;
  /** More parameter names to drop, from WAYFARER_CACHE_IGNORE_PARAMS. */
  ignoreParameters?: readonly string[];
}

export interface CacheKey {
  /** `<method>-<hash>`: a file name, and the key an exported entry carries. */
  value: string;
  /** What went into the hash, for the entry's own record (no secrets in it). */
  parts: Record<string, unknown>;
}

export function cacheKey(input: KeyInput): CacheKey {
  const parts = {
    version: CACHE_KEY_VERSION,
    method: input.method,
    instruction: input.instruction.trim().replace(/\s+/g, " "),
    url: normalisedUrl(input.url, input.ignoreParameters ?? []),
    variables: Object.keys(input.variables ?? {}).sort(),
    options: sortedDeep(withoutUndefined(input.options ?? {})),
    model: modelSignature(input.model),
    systemPrompt: input.systemPrompt ?? null,
  };
  const hash = createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
  return { value: `${input.method}-v${CACHE_KEY_VERSION}-${hash}`, parts };
}

/** The model a call uses when it names none: the client's, or a custom client's name. */
export type KeyModel = ModelConfiguration | { modelId: string; provider: string } | undefined;

/**
 * An agent run's key: its task, the page it starts on, the variables' names, and how the agent
 * is set up (mode, models, system prompts). The same on the client and on the engine that
 * records the run, which both see the request with its config already resolved.
 */
export function agentCacheKey(input: {
  request: AgentExecuteRequest;
  url: string;
  clientModel: KeyModel;
  clientSystemPrompt: string | undefined;
  ignoreParameters: readonly string[];
}): CacheKey {
  const { agentConfig, executeOptions } = input.request;
  return cacheKey({
    method: "agent",
    instruction: executeOptions.instruction,
    url: input.url,
    variables: executeOptions.variables,
    options: {
      mode: agentConfig.mode ?? "dom",
      executionModel: agentConfig.executionModel && modelSignature(agentConfig.executionModel),
      agentSystemPrompt: agentConfig.systemPrompt,
      useSearch: executeOptions.useSearch,
    },
    model: agentConfig.model ?? input.clientModel,
    systemPrompt: input.clientSystemPrompt,
    ignoreParameters: input.ignoreParameters,
  });
}

/** The parameters WAYFARER_CACHE_IGNORE_PARAMS adds to the volatile ones. */
export function ignoredParameters(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.WAYFARER_CACHE_IGNORE_PARAMS ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
}

/** The URL without its fragment, its query sorted, tracking parameters and user info gone. */
export function normalisedUrl(raw: string, ignore: readonly string[] = []): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  url.hash = "";
  url.username = "";
  url.password = "";
  const kept = [...url.searchParams].filter(
    ([name]) =>
      !VOLATILE_PARAMETERS.some((p) => p.test(name)) &&
      !ignore.some((i) => i.toLowerCase() === name.toLowerCase()),
  );
  kept.sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  url.search = new URLSearchParams(kept).toString();
  return url.href;
}

/** Which model answered, without a key, a token or a header value. */
export function modelSignature(model: KeyInput["model"]): Record<string, unknown> | null {
  if (model === undefined) return null;
  if (typeof model === "string") return { modelName: model };
  if ("modelId" in model) return { custom: model.provider, modelName: model.modelId };
  const signature: Record<string, unknown> = { modelName: model.modelName };
  if ("provider" in model && model.provider) signature.provider = model.provider;
  if (model.baseURL) signature.baseURL = withoutCredentials(model.baseURL);
  if ("openaiEndpointFormat" in model && model.openaiEndpointFormat)
    signature.openaiEndpointFormat = model.openaiEndpointFormat;
  return signature;
}

function withoutCredentials(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = "";
    url.password = "";
    url.search = "";
    return url.href;
  } catch {
    return raw;
  }
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedDeep((value as Record<string, unknown>)[k])]),
  );
}
