/**
 * Whether the service's cache answered an extract: `cacheStatus` on the result (the reference's
 * name), present only in the remote environment with the server cache on. The engine marks the
 * raw result; the operation path puts the field on the result the caller gets, after the
 * caller's schema has parsed it (a strict schema would refuse a field it does not list).
 */
export type CacheStatus = "HIT" | "MISS";

const MARK = Symbol("cacheStatus");

/** The result, marked (in this process only) with the status the service told. */
export function markCacheStatus<T>(result: T, hit: boolean | undefined): T {
  if (hit === undefined || !result || typeof result !== "object") return result;
  Object.defineProperty(result, MARK, { value: hit ? "HIT" : "MISS", enumerable: false });
  return result;
}

/** `parsed` with the `cacheStatus` of `raw`'s mark, when it has one and `parsed` is an object. */
export function withCacheStatus<T>(raw: unknown, parsed: T): T {
  const status =
    raw && typeof raw === "object" ? (raw as { [MARK]?: CacheStatus })[MARK] : undefined;
  if (!status || !parsed || typeof parsed !== "object" || Array.isArray(parsed)) return parsed;
  return { ...parsed, cacheStatus: status };
}
