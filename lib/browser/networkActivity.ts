/**
 * What a page has in flight on the network that its outline depends on, so that a capture
 * waits only while something that can still change the outline is loading. Tracked from the
 * moment the page is adopted: a page at rest is known to be at rest at once.
 *
 * Counted: documents (the page and its frames), scripts, stylesheets, XHR and fetch. Not
 * counted: images, fonts, media, text tracks, favicons, beacons, prefetches, manifests,
 * event streams and websockets — they change how a page looks, not what its outline says
 * (an image's alt text is in the DOM before the image arrives).
 */
import type { Page, Request } from "playwright-core";

/** Resource types whose loading can still change what the outline shows. */
export const CONTENT_TYPES: ReadonlySet<string> = new Set([
  "document",
  "script",
  "stylesheet",
  "xhr",
  "fetch",
]);
/** A request pending longer than this is taken for a long-poll and stops counting. */
export const LONG_REQUEST_MS = 2_000;

export interface NetworkActivity {
  /** Counted requests started less than LONG_REQUEST_MS ago and not finished. */
  pending(now?: number): number;
  /**
   * When a counted request last finished with a response after the page's latest load event
   * (ms since epoch); 0 if none has. What finished before load, load itself has taken in.
   */
  lastArrival(): number;
}

const trackers = new WeakMap<Page, NetworkActivity>();

export function networkActivity(page: Page): NetworkActivity {
  const known = trackers.get(page);
  if (known) return known;
  const started = new Map<Request, number>();
  let arrival = 0;
  page.on("request", (request) => {
    if (CONTENT_TYPES.has(request.resourceType())) started.set(request, Date.now());
  });
  page.on("requestfinished", (request) => {
    if (started.delete(request)) arrival = Date.now();
  });
  // A failed request brings no content; its error handler has run by the time we hear of it.
  page.on("requestfailed", (request) => started.delete(request));
  page.on("load", () => {
    arrival = 0;
  });
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
    lastArrival: () => arrival,
  };
  trackers.set(page, tracker);
  return tracker;
}
