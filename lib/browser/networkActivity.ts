/**
 * What a page has in flight on the network, so that a capture can wait for an idle network
 * without a fixed pause: tracked from the moment the page is adopted, a page that has been
 * quiet for a while is known to be quiet at once.
 */
import type { Page, Request } from "playwright-core";

/** Requests that never end by design: they must not hold a capture. */
const ENDLESS_TYPES = new Set(["eventsource", "websocket", "media", "ping"]);
/** A request pending longer than this is taken for a long-poll and stops counting. */
export const LONG_REQUEST_MS = 2_000;

export interface NetworkActivity {
  /** Requests started less than LONG_REQUEST_MS ago and not finished. */
  pending(now?: number): number;
  /** When a counted request last started or ended (ms since epoch); 0 if never. */
  lastChange(): number;
}

const trackers = new WeakMap<Page, NetworkActivity>();

export function networkActivity(page: Page): NetworkActivity {
  const known = trackers.get(page);
  if (known) return known;
  const started = new Map<Request, number>();
  let last = 0;
  const end = (request: Request) => {
    if (started.delete(request)) last = Date.now();
  };
  page.on("request", (request) => {
    if (ENDLESS_TYPES.has(request.resourceType())) return;
    started.set(request, Date.now());
    last = Date.now();
  });
  page.on("requestfinished", end);
  page.on("requestfailed", end);
  // A page that goes away takes its requests with it.
  page.on("close", () => started.clear());
  const tracker: NetworkActivity = {
    pending: (now = Date.now()) => {
      let n = 0;
      for (const [request, at] of started) {
        if (now - at < LONG_REQUEST_MS) n++;
        // Old entries whose end we never heard of (a frame torn down) must not pile up.
        else if (now - at > 60_000) started.delete(request);
      }
      return n;
    },
    lastChange: () => last,
  };
  trackers.set(page, tracker);
  return tracker;
}
