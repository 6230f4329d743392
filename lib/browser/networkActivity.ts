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
/** Those whose end page scripts hear of through callbacks. */
const CALL_TYPES: ReadonlySet<string> = new Set(["xhr", "fetch"]);
/** A request pending longer than this is taken for a long-poll and stops counting. */
export const LONG_REQUEST_MS = 2_000;

export interface NetworkActivity {
  /** Counted requests started less than LONG_REQUEST_MS ago and not finished. */
  pending(now?: number): number;
  /**
   * When a counted request whose end page scripts react to last ended (ms since epoch; 0 if
   * none): an XHR or fetch, answered or failed (its callbacks run after we hear of it), at any
   * time; a document, script or stylesheet with a response, after the page's latest load
   * event (what loaded before it, load itself has taken in).
   */
  lastArrival(): number;
}

const trackers = new WeakMap<Page, NetworkActivity>();

export function networkActivity(page: Page): NetworkActivity {
  const known = trackers.get(page);
  if (known) return known;
  const started = new Map<Request, number>();
  /** A document, script or stylesheet answered since the latest load. */
  let loaded = 0;
  /** An XHR or fetch ended. */
  let called = 0;
  const calls = (request: Request) => CALL_TYPES.has(request.resourceType());
  page.on("request", (request) => {
    if (CONTENT_TYPES.has(request.resourceType())) started.set(request, Date.now());
  });
  page.on("requestfinished", (request) => {
    if (!started.delete(request)) return;
    if (calls(request)) called = Date.now();
    else loaded = Date.now();
  });
  // A failed document, script or stylesheet brings nothing to react to; a failed call does
  // (an error message, a retry).
  page.on("requestfailed", (request) => {
    if (started.delete(request) && calls(request)) called = Date.now();
  });
  page.on("load", () => {
    loaded = 0;
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
    lastArrival: () => Math.max(loaded, called),
  };
  trackers.set(page, tracker);
  return tracker;
}
