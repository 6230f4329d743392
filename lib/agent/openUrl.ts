/**
 * How the agent opens a URL, whichever tool or protocol asks (goto, Gemini's navigate): the
 * navigation-safety rule first, then the load, stopped if it does not finish in time so that
 * later steps can still read the page. A failure is one readable error (Chromium's code in
 * words, what to do), with Playwright's own as its cause for the debug log.
 */
import type { Page as PlaywrightPage, Response } from "playwright-core";
import { unlessUnreachable } from "../browser/egressProxy.js";
import {
  type NavigationAllowance,
  NavigationRefusedError,
  navigationRefusal,
} from "../browser/navigationPolicy.js";
import { ServiceTimeoutError } from "../errors.js";
import { navigationError } from "../readableError.js";
import { type Deadline, isPlaywrightTimeout } from "../timeout.js";

export async function openUrl(
  page: PlaywrightPage,
  url: string,
  allow: NavigationAllowance,
  deadline: Deadline,
  /** The tool or action that asked, as errors name it. */
  method = "goto",
): Promise<Response | null> {
  const refused = await navigationRefusal(url, allow);
  if (refused) throw new NavigationRefusedError(url, refused);
  const timeout = withReserve(deadline);
  // Straight to Playwright: the agent's steps are its result's actions, not history entries.
  return page
    .goto(url, { waitUntil: "domcontentloaded", timeout })
    .then(unlessUnreachable)
    .catch(async (error: unknown) => {
      await stopLoading(page);
      if (isPlaywrightTimeout(error)) {
        throw new ServiceTimeoutError(method, timeout, "the page's DOMContentLoaded event", [], {
          advice: "The load was stopped where it got to: read the page as it is, or try again",
          cause: error,
        });
      }
      throw navigationError(method, url, error);
    });
}

/** The time left less a reserve (a quarter, at most 1 s) for what must follow. */
export function withReserve(deadline: Deadline): number {
  const left = deadline.remaining();
  return Math.max(1, left - Math.min(1_000, left / 4));
}

async function stopLoading(page: PlaywrightPage): Promise<void> {
  const session = await page
    .context()
    .newCDPSession(page)
    .catch(() => undefined);
  await session?.send("Page.stopLoading").catch(() => {});
  await session?.detach().catch(() => {});
}
