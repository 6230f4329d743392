/**
 * A recording's responses served again inside the browser: every request of the context is
 * answered from them (by CDP's Fetch domain, through Playwright's routing) before it reaches any
 * network, so each page keeps the URL and origin it had when recorded and nothing leaves the
 * machine. A request the recording does not hold gets a 404 and is listed.
 */
import type { Route } from "playwright-core";
import type { Context } from "./context.js";
import type { CapturedResponse } from "./trafficRecorder.js";

export interface TrafficReplay {
  /** `METHOD URL` of each request the recording could not answer, in order. */
  missing(): string[];
  /** Stops answering. */
  stop(): Promise<void>;
}

/** From now on, the context's requests are answered from `responses` (in recorded order). */
export async function replayTraffic(
  context: Context,
  responses: CapturedResponse[],
): Promise<TrafficReplay> {
  // A URL fetched several times is answered in the order recorded, the last one again after.
  const queues = new Map<string, CapturedResponse[]>();
  for (const r of responses) {
    const key = keyOf(r.response.method, r.response.url);
    queues.set(key, [...(queues.get(key) ?? []), r]);
  }
  const missing: string[] = [];
  const answer = async (route: Route) => {
    const request = route.request();
    const key = keyOf(request.method(), request.url());
    const queue = queues.get(key);
    const next = queue && (queue.length > 1 ? queue.shift()! : queue[0]!);
    if (!next || next.response.omitted) {
      missing.push(next?.response.omitted ? `${key} (${next.response.omitted})` : key);
      await route.fulfill({
        status: 404,
        contentType: "text/plain",
        body: "Not in the recording.",
      });
      return;
    }
    await route.fulfill({
      status: next.response.status,
      headers: next.response.headers,
      body: next.body ?? Buffer.alloc(0),
    });
  };
  // A request the page abandoned meanwhile cannot be fulfilled: nothing to answer then.
  const handler = (route: Route) => answer(route).catch(() => {});
  await context.playwrightContext.route("**/*", handler);
  return {
    missing: () => [...missing],
    stop: () => context.playwrightContext.unroute("**/*", handler),
  };
}

/** One request as the recording names it: a fragment is never sent, so never part of it. */
function keyOf(method: string, url: string): string {
  const parsed = URL.parse(url);
  if (parsed) parsed.hash = "";
  return `${method.toUpperCase()} ${parsed?.href ?? url}`;
}
