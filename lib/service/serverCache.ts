/**
 * The server cache: act, extract and observe answers kept under a key made of the call (its
 * instruction, schema and options), the model that answers it (never its key), the caller's
 * project, and a digest of the page's outline, so a changed page is a miss and extract never
 * serves stale data. A HIT of act performs the recorded action without the model; extract and
 * observe answer what was stored.
 *
 * Entries sit behind a store interface: a folder (folderCacheStore.ts) or Redis in shared mode
 * (shared/redisCache.ts). Both seal each entry with a secret of the service (cacheSeal.ts), so
 * one written by anyone else is a miss, and both cap an entry's size, the total (the least
 * recently used go first) and an entry's age.
 */
import { createHash } from "node:crypto";
import type { ServiceConfig } from "./config.js";

export { FolderCacheStore } from "./folderCacheStore.js";

export interface ServerCacheStore {
  /** The value kept under `key`; undefined for a miss (never an error). */
  get(key: string): Promise<unknown | undefined>;
  /** Keeps `value` under `key` when it fits; a store that cannot keep it drops it silently. */
  put(key: string, value: unknown): Promise<void>;
}

/** An entry's largest size, the largest total, an entry's longest life (WAYFARER_CACHE_MAX_*). */
export type CacheLimits = ServiceConfig["cacheLimits"];

/** Who answers a call that names no model, and for whom. */
export interface CacheScope {
  /** The caller's project: entries are never shared across projects. */
  project: string;
  /** The session's model (from /start), which answers when the call names none. */
  sessionModel: string | undefined;
}

/**
 * The key of a call: its operation, what it asks (without options that do not change the
 * answer), the model that answers it with its endpoint (never a key or headers), the project,
 * the page's URL and its outline's digest.
 */
export function serverCacheKey(
  operation: "act" | "extract" | "observe",
  request: { options?: Record<string, unknown> } & Record<string, unknown>,
  page: { url: string; outline: string },
  scope: CacheScope,
): string {
  const { timeout: _t, serverCache: _s, model, ...options } = request.options ?? {};
  const asked = {
    ...request,
    options,
    model: modelIdentity(model ?? scope.sessionModel),
    project: scope.project,
    url: page.url,
    outline: digest(page.outline),
  };
  return `${operation}-${digest(stable(asked))}`;
}

/**
 * What tells answering models apart: the name and provider, and where it is asked (baseURL,
 * Azure's resource, Vertex's project and location). Keys, tokens and headers are left out. A
 * name alone is the operator's endpoint, whether the call or the session named it.
 */
function modelIdentity(model: unknown): Record<string, unknown> | undefined {
  if (typeof model === "string") return { modelName: model };
  if (!model || typeof model !== "object") return undefined;
  const m = model as Record<string, unknown>;
  const providerOptions = (m.providerOptions ?? {}) as Record<string, Record<string, unknown>>;
  const pick = (from: Record<string, unknown> | undefined, names: string[]) =>
    from ? Object.fromEntries(names.map((n) => [n, from[n]])) : undefined;
  return {
    modelName: m.modelName,
    provider: m.provider,
    baseURL: m.baseURL,
    openaiEndpointFormat: m.openaiEndpointFormat,
    azure: pick(providerOptions.azure, [
      "resourceName",
      "baseURL",
      "apiVersion",
      "useDeploymentBasedUrls",
    ]),
    vertex: pick(providerOptions.vertex, ["project", "location", "baseURL"]),
  };
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

/** JSON with object keys in order: the same call makes the same key. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The caller turned the cache off for this call (the 3.7 client's header, or ours). */
export function bypassed(headers: Record<string, string | string[] | undefined>): boolean {
  return ["browserbase-cache-bypass", "x-cache-bypass"].some(
    (h) => String(headers[h] ?? "").toLowerCase() === "true",
  );
}
