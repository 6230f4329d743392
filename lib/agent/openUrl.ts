/**
 * How the agent opens a URL, whichever tool or protocol asks (goto, Gemini's navigate): the
 * navigation-safety rule first, then the load, stopped if it does not finish in time so that
 * later steps can still read the page.
 */
import type { Page as PlaywrightPage, Response } from "playwright-core";
import {
  type NavigationAllowance,
  NavigationRefusedError,
  navigationRefusal,
} from "../browser/navigationPolicy.js";
import type { Deadline } from "../timeout.js";

export async function openUrl(
  page: PlaywrightPage,
  url: string,
  allow: NavigationAllowance,
  deadline: Deadline,
): Promise<Response | null> {
  const refused = await navigationRefusal(url, allow);
  if (refused) throw new NavigationRefusedError(url, refused);
  // Straight to Playwright: the agent's steps are its result's actions, not history entries.
  return page
    .goto(url, { waitUntil: "domcontentloaded", timeout: withReserve(deadline) })
    .catch(async (error: unknown) => {
      await stopLoading(page);
      throw error;
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
