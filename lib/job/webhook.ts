/**
 * RESULT_WEBHOOK_URL: each run's answer (with timings; on failure the last URL and a
 * screenshot) is POSTed there as JSON, signed with HMAC-SHA256 of the body under
 * RESULT_WEBHOOK_SECRET in `x-wayfarer-signature: sha256=<hex>`, and retried with backoff,
 * never past the time it is given.
 */
import { createHmac } from "node:crypto";
import { sleep } from "../timeout.js";

const RETRY_DELAYS_MS = [250, 1_000];

export interface ResultPayload {
  ok: boolean;
  data?: string;
  error?: string;
  timings?: Record<string, number>;
  /** On failure: where the page was, and what it showed (PNG, base64). */
  url?: string;
  screenshot?: string;
}

export function signature(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** Delivers the payload; true when the receiver answered 2xx within `timeMs`. */
export async function sendResult(
  url: string,
  secret: string | undefined,
  payload: ResultPayload,
  timeMs: number,
): Promise<boolean> {
  const endsAt = Date.now() + timeMs;
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (secret) headers["x-wayfarer-signature"] = signature(body, secret);
  for (let attempt = 0; ; attempt++) {
    const left = endsAt - Date.now();
    if (left <= 0) return false;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(left),
      });
      if (response.ok) return true;
      if (response.status < 500 && response.status !== 429) return false;
    } catch {
      // Unreachable or too slow: tried again while there is time.
    }
    const delay = RETRY_DELAYS_MS[attempt];
    if (delay === undefined || Date.now() + delay >= endsAt) return false;
    await sleep(delay);
  }
}
