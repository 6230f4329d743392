/**
 * Before a capture: wait only for what is still moving, at most `domSettleTimeout`. Both
 * signals come from trackers that run all along (counted requests from the page's first
 * moment, element changes from each document's start), so a page at rest is captured at once:
 * nothing pending, no response arrived since load, no element changed since load.
 *
 * What moves: a document, frame, script, stylesheet, XHR or fetch still loading (long-polls
 * over 2 s excepted; images, fonts, media and beacons never count: see networkActivity.ts);
 * an XHR or fetch that ended, or a document, script or stylesheet answered after load, less
 * than ARRIVAL_QUIET_MS ago (its callbacks may start more); elements added or removed after
 * load less than DOM_QUIET_MS ago. A DOM that keeps
 * changing once the network is idle (tickers, animations) is captured once it has had
 * DOM_GRACE_MS to calm down: its content is there.
 *
 * Right after an action of ours (a click, typing), the page first gets one rendered frame and
 * a task to start what the action scheduled (a zero-delay timer, a framework's next-frame
 * render); what its own handlers changed before it returned is its result, not motion.
 */
import type { Page } from "playwright-core";
import { actionAge } from "../browser/actionNotes.js";
import { isolatedWorld, ownSession } from "../browser/frameSessions.js";
import { networkActivity } from "../browser/networkActivity.js";
import type { Logger } from "../log.js";
import { awaitAtMost, sleep } from "../timeout.js";

/**
 * After a response, how long its callbacks get to start another request. Measured here on
 * chained fetch and XHR calls, from the end of one to the start of the next as we hear of
 * them (240 links): median 9 ms, 90th percentile 29–31, 99th 35–38, longest 71.
 */
export const ARRIVAL_QUIET_MS = 75;
/** The DOM counts as quiet after this long without an element added or removed. */
export const DOM_QUIET_MS = 100;
/** How long a changing DOM may hold the capture once the network is idle. */
export const DOM_GRACE_MS = 1_000;
const POLL_MS = 20;
/** A capture this soon after an action of ours lets the page render a frame first. */
export const AFTER_ACTION_MS = 100;
/** The longest that frame is waited for (a hidden tab renders none). */
const FRAME_WAIT_MS = 50;

/**
 * After an action of ours, one rendered frame and a task, at most FRAME_WAIT_MS. Whether it
 * waited.
 */
export async function actionSettled(page: Page, timeoutMs: number): Promise<boolean> {
  const age = actionAge(page);
  if (age < 0 || age >= AFTER_ACTION_MS || timeoutMs <= 0) return false;
  return turnOf(page, "frame", timeoutMs);
}

/**
 * One turn of the page, at most FRAME_WAIT_MS: a task (what an action queued, a form's
 * submission, has begun), or a rendered frame and a task. Whether it waited.
 */
export async function turnOf(
  page: Page,
  turn: "task" | "frame",
  timeoutMs: number,
): Promise<boolean> {
  if (timeoutMs <= 0) return false;
  const bound = Math.min(FRAME_WAIT_MS, timeoutMs);
  const start =
    turn === "frame" ? "requestAnimationFrame(() => setTimeout(done, 0))" : "setTimeout(done, 0)";
  let rendered = false;
  const frame = (async () => {
    const owner = await ownSession(page, page.mainFrame());
    if (!owner) throw new Error("no session on the page");
    const world = await isolatedWorld(owner, await owner.rootFrameId());
    await owner.session.send("Runtime.evaluate", {
      expression: `new Promise((done) => {
        ${start};
        setTimeout(done, ${bound});
      })`,
      contextId: world,
      awaitPromise: true,
    });
    rendered = true;
  })();
  // A document that went away (the action navigated) settles on its own terms; a renderer
  // busy in a loop never answers: the bound holds on our side too.
  const answered = await awaitAtMost(frame, Math.min(timeoutMs, bound + FRAME_WAIT_MS));
  return rendered || !answered;
}

/**
 * Waits until nothing the outline depends on is loading, at most `timeoutMs`. Whether it had
 * anything to wait for.
 */
export async function networkIdle(page: Page, timeoutMs: number, logger: Logger): Promise<boolean> {
  const endsAt = Date.now() + timeoutMs;
  const network = networkActivity(page);
  for (let waited = false; ; waited = true) {
    const now = Date.now();
    if (network.pending(now) === 0 && now - network.lastArrival() >= ARRIVAL_QUIET_MS) {
      return waited;
    }
    if (now >= endsAt) {
      logger.debug("snapshot", "network still busy at domSettleTimeout; capturing anyway", {
        pending: network.pending(now),
      });
      return true;
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
