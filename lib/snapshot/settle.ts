/**
 * Before a capture: wait for an idle network and a quiet DOM, at most `domSettleTimeout`.
 * Both are known from trackers that run all along, so a page that is already settled costs one
 * evaluation. Long-polls (requests pending over 2 s), event streams, websockets and media do
 * not count; a DOM that keeps changing after the network went idle (tickers, animations) is
 * captured once it has had DOM_GRACE_MS to calm down: its content is there.
 */
import type { Page } from "playwright-core";
import { domQuietFor } from "../browser/domActivity.js";
import { networkActivity } from "../browser/networkActivity.js";
import type { Logger } from "../log.js";
import { sleep } from "../timeout.js";

/** The network counts as idle after this long without a counted request starting or ending. */
export const NETWORK_QUIET_MS = 250;
/** The DOM counts as quiet after this long without an element added or removed. */
export const DOM_QUIET_MS = 100;
/** How long a changing DOM may hold the capture once the network is idle. */
export const DOM_GRACE_MS = 1_000;
const POLL_MS = 25;

export async function settle(page: Page, timeoutMs: number, logger: Logger): Promise<void> {
  const endsAt = Date.now() + timeoutMs;
  const network = networkActivity(page);
  for (;;) {
    const now = Date.now();
    if (network.pending(now) === 0 && now - network.lastChange() >= NETWORK_QUIET_MS) break;
    if (now >= endsAt) {
      logger.debug("snapshot", "network still busy at domSettleTimeout; capturing anyway", {
        pending: network.pending(now),
      });
      return;
    }
    await sleep(Math.min(POLL_MS, endsAt - now));
  }
  const graceEndsAt = Math.min(endsAt, Date.now() + DOM_GRACE_MS);
  for (;;) {
    let quiet: number;
    try {
      quiet = await domQuietFor(page.mainFrame());
    } catch {
      // Between documents: the capture that follows retries on its own.
      return;
    }
    if (quiet >= DOM_QUIET_MS) return;
    const now = Date.now();
    if (now >= graceEndsAt) {
      logger.debug("snapshot", "the DOM keeps changing; capturing as it is");
      return;
    }
    await sleep(Math.min(DOM_QUIET_MS - quiet, graceEndsAt - now));
  }
}
