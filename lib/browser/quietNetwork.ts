/**
 * After a page's load event, until what its data depends on has arrived: no document, script,
 * stylesheet, XHR or fetch in flight (long-polls excepted) and none answered for `quietMs`,
 * at most `timeoutMs`. A page that fetches its content once loaded (on load, from a deferred
 * script) is read with its content, and a request Chromium reports a moment after load (one
 * paused by an interception, as a replay's are) is waited for rather than missed.
 */
import { sleep } from "../timeout.js";
import { networkActivity } from "./networkActivity.js";
import type { Page } from "./page.js";

const POLL_MS = 20;

/** Whether the network went quiet within the bound. */
export async function quietNetwork(
  page: Page,
  quietMs: number,
  timeoutMs: number,
): Promise<boolean> {
  const network = networkActivity(page.playwrightPage);
  const started = Date.now();
  const endsAt = started + timeoutMs;
  let quietSince = started;
  for (;;) {
    const now = Date.now();
    if (network.pending(now) > 0) quietSince = now;
    const since = Math.max(quietSince, network.lastArrival());
    if (now - since >= quietMs) return true;
    if (now >= endsAt) return false;
    await sleep(Math.min(POLL_MS, endsAt - now));
  }
}
