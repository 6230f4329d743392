/**
 * Before a capture: an idle network and a quiet DOM, at most `domSettleTimeout`. Both are known
 * from trackers that run all along (requests from the page's first moment, element changes from
 * each document's start), so a page that is already settled costs nothing extra: the DOM's
 * quiet time comes back with the capture itself, and a capture taken too early is taken again.
 * Long-polls (requests pending over 2 s), event streams, websockets and media do not count; a
 * DOM that keeps changing after the network went idle (tickers, animations) is captured once
 * it has had DOM_GRACE_MS to calm down: its content is there.
 */
import type { Page } from "playwright-core";
import { networkActivity } from "../browser/networkActivity.js";
import type { Logger } from "../log.js";
import { sleep } from "../timeout.js";

/** The network counts as idle after this long without a counted request starting or ending. */
export const NETWORK_QUIET_MS = 150;
/** The DOM counts as quiet after this long without an element added or removed. */
export const DOM_QUIET_MS = 100;
/** How long a changing DOM may hold the capture once the network is idle. */
export const DOM_GRACE_MS = 1_000;
const POLL_MS = 25;

/** Waits for an idle network, at most `timeoutMs`. */
export async function networkIdle(page: Page, timeoutMs: number, logger: Logger): Promise<void> {
  const endsAt = Date.now() + timeoutMs;
  const network = networkActivity(page);
  for (;;) {
    const now = Date.now();
    if (network.pending(now) === 0 && now - network.lastChange() >= NETWORK_QUIET_MS) return;
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
