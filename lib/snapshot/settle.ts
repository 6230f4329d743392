/**
 * Before a capture: wait only for what is still moving, at most `domSettleTimeout`. Both
 * signals come from trackers that run all along (counted requests from the page's first
 * moment, element changes from each document's start), so a page at rest is captured at once:
 * nothing pending, no response arrived since load, no element changed since load.
 *
 * What moves: a document, frame, script, stylesheet, XHR or fetch still loading (long-polls
 * over 2 s excepted; images, fonts, media and beacons never count: see networkActivity.ts);
 * a response that arrived after load less than ARRIVAL_QUIET_MS ago (its callbacks may start
 * more); elements added or removed after load less than DOM_QUIET_MS ago. A DOM that keeps
 * changing once the network is idle (tickers, animations) is captured once it has had
 * DOM_GRACE_MS to calm down: its content is there.
 */
import type { Page } from "playwright-core";
import { networkActivity } from "../browser/networkActivity.js";
import type { Logger } from "../log.js";
import { sleep } from "../timeout.js";

/** After a response arrives post-load, how long its callbacks get to start another request. */
export const ARRIVAL_QUIET_MS = 50;
/** The DOM counts as quiet after this long without an element added or removed. */
export const DOM_QUIET_MS = 100;
/** How long a changing DOM may hold the capture once the network is idle. */
export const DOM_GRACE_MS = 1_000;
const POLL_MS = 20;

/** Waits until nothing the outline depends on is loading, at most `timeoutMs`. */
export async function networkIdle(page: Page, timeoutMs: number, logger: Logger): Promise<void> {
  const endsAt = Date.now() + timeoutMs;
  const network = networkActivity(page);
  for (;;) {
    const now = Date.now();
    if (network.pending(now) === 0 && now - network.lastArrival() >= ARRIVAL_QUIET_MS) return;
    if (now >= endsAt) {
      logger.debug("snapshot", "network still busy at domSettleTimeout; capturing anyway", {
        pending: network.pending(now),
      });
      return;
    }
    await sleep(Math.min(POLL_MS, endsAt - now));
  }
}

/** How long to wait before capturing again, given the DOM's quiet time; 0 to keep the capture. */
export function domWait(quietFor: number, graceEndsAt: number): number {
  if (quietFor >= DOM_QUIET_MS) return 0;
  const left = graceEndsAt - Date.now();
  return left <= 0 ? 0 : Math.min(DOM_QUIET_MS - quietFor, left);
}
