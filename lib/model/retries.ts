/**
 * When a failed model call is tried again: rate limits, server errors and dropped connections,
 * after 250 ms, 1 s and 3 s, or after the wait the provider asks for when that is short.
 */
import { APICallError } from "ai";
import { RefusedAddressError } from "../net/guardedFetch.js";

/** Waits before the retries of a rate-limited or failed call; the last one's error is raised. */
export const RETRY_DELAYS_MS = [250, 1_000, 3_000];

/** A provider asking for a longer wait than this is not retried: the call fails at once. */
export const MAX_RETRY_AFTER_MS = 10_000;

/** How long to wait before trying again, or undefined when the error is final. */
export function retryDelay(error: unknown, attempt: number, now = Date.now()): number | undefined {
  if (!APICallError.isInstance(error) || !error.isRetryable) return undefined;
  // An address the rule refuses stays refused.
  if (error.cause instanceof RefusedAddressError) return undefined;
  const planned = RETRY_DELAYS_MS[attempt];
  if (planned === undefined) return undefined;
  const asked = askedWait(error.responseHeaders, now);
  if (asked === undefined) return planned;
  return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date; undefined when absent. */
function askedWait(headers: Record<string, string> | undefined, now: number): number | undefined {
  const ms = headers?.["retry-after-ms"];
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) {
    return Math.max(0, Number(ms));
  }
  const after = headers?.["retry-after"];
  if (after === undefined || after.trim() === "") return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
