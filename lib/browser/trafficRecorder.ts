/**
 * What the browser received, kept so that a page can be served again offline: every response
 * of the context (documents, frames, scripts, styles, images, fetch/XHR, redirects) with its
 * status, the few headers a page needs to behave the same (type, redirect target, CORS) and its
 * body. Cookies and every other header are left out: a recording is committed to a repository.
 */
import type { Response } from "playwright-core";
import { z } from "zod";
import { awaitAtMost } from "../timeout.js";
import type { Context } from "./context.js";

/** Response headers a replayed page needs; nothing else is kept (never set-cookie). */
export const KEPT_HEADERS = [
  "content-type",
  "location",
  "access-control-allow-origin",
  "access-control-allow-credentials",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-expose-headers",
] as const;

/** A body past this is not kept (its response is, marked): a recording stays committable. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Bodies past this many bytes in all are not kept either. */
export const MAX_TOTAL_BYTES = 50 * 1024 * 1024;
/** How long stop() waits for bodies still being read. */
const DRAIN_MS = 5_000;

export const RecordedResponseSchema = z.strictObject({
  method: z.string().min(1),
  url: z.url(),
  status: z.number().int().min(100).max(599),
  headers: z.partialRecord(z.enum(KEPT_HEADERS), z.string()),
  /** Why there is no body, when a response that has one was not kept. */
  omitted: z.enum(["too large", "unreadable"]).optional(),
});
export type RecordedResponse = z.infer<typeof RecordedResponseSchema>;

/** A response and its body, in memory. */
export interface CapturedResponse {
  response: RecordedResponse;
  body?: Buffer;
}

export interface TrafficRecorder {
  /**
   * Stops listening and answers what was received, in the order the responses arrived, and the
   * values of the context's cookies (to be scrubbed from whatever is kept).
   */
  stop(): Promise<{ responses: CapturedResponse[]; cookies: string[] }>;
}

/** Starts keeping every response the context's pages receive (before the first navigation). */
export function recordTraffic(context: Context): TrafficRecorder {
  const captured: (CapturedResponse | undefined)[] = [];
  const reading = new Set<Promise<void>>();
  let total = 0;
  const onResponse = (response: Response) => {
    const slot = captured.push(undefined) - 1;
    const work = capture(response, (bytes) => {
      if (total + bytes > MAX_TOTAL_BYTES) return false;
      total += bytes;
      return true;
    }).then((c) => {
      captured[slot] = c;
    });
    reading.add(work);
    void work.finally(() => reading.delete(work));
  };
  const playwright = context.playwrightContext;
  playwright.on("response", onResponse);
  return {
    async stop() {
      playwright.off("response", onResponse);
      await awaitAtMost(Promise.all(reading), DRAIN_MS);
      const cookies = await playwright.cookies().catch(() => []);
      return {
        responses: captured.filter((c) => c !== undefined),
        cookies: cookies.map((c) => c.value),
      };
    },
  };
}

async function capture(
  response: Response,
  room: (bytes: number) => boolean,
): Promise<CapturedResponse | undefined> {
  const request = response.request();
  const url = request.url();
  if (!/^https?:/.test(url)) return undefined;
  const all = await response.allHeaders().catch(() => response.headers());
  const headers: RecordedResponse["headers"] = {};
  for (const name of KEPT_HEADERS) if (all[name] !== undefined) headers[name] = all[name];
  const status = response.status();
  const recorded: RecordedResponse = { method: request.method(), url, status, headers };
  // A redirect has no body to read; nor do 204 and 304.
  if ((status >= 300 && status < 400) || status === 204) return { response: recorded };
  const body = await response.body().catch(() => undefined);
  if (!body) return { response: { ...recorded, omitted: "unreadable" } };
  if (body.length > MAX_BODY_BYTES || !room(body.length)) {
    return { response: { ...recorded, omitted: "too large" } };
  }
  return { response: recorded, body };
}
