/**
 * What the coordinate tools share: a point's schema (in the pixels of the latest screenshot),
 * the screen of the page now, and the fresh screenshot each returns after acting, so that the
 * model sees what its action did.
 */

import type { Page as PlaywrightPage } from "playwright-core";
import { z } from "zod";
import { putValue } from "../../browser/guardedInput.js";
import { focusOrigins, focusTarget } from "../../browser/typingOrigin.js";
import type { Deadline } from "../../timeout.js";
import { checkTypedWhere, originOf, VariableOriginRefused, variablesIn } from "../../variables.js";
import { type Typing, typeKeys } from "../computerActions.js";
import { showCursorAt } from "../cursor.js";
import { captureMasked } from "../maskedCapture.js";
import { type Screen, screenFor, toViewport } from "../screen.js";
import type { AgentRun, ToolOutput } from "./defineTool.js";

export const PointSchema = {
  x: z.number().min(0).describe("Horizontal position, in pixels of the latest screenshot"),
  y: z.number().min(0).describe("Vertical position, in pixels of the latest screenshot"),
};

/**
 * Typing `text` where the focus is now: refused, before any key, unless every frame from the
 * top document to the focused one is an origin its variables may be typed on.
 */
export async function checkFocusFor(
  run: AgentRun,
  page: PlaywrightPage,
  text: string,
): Promise<void> {
  if (Object.keys(variablesIn(text, run.variables)).length === 0) return;
  for (const origin of await focusOrigins(page)) {
    checkTypedWhere(text, run.variables, run.start.origin, origin);
  }
}

/**
 * How text is typed where the focus is: checked first (checkFocusFor); with a variable in it,
 * put into the focused element itself, its origin checked again at that moment, never sent as
 * keys a page could redirect (lib/browser/guardedInput.ts). `clear` replaces what it holds.
 */
export function typingFor(run: AgentRun, page: PlaywrightPage, given: string): Typing {
  const check = () => checkFocusFor(run, page, given);
  if (Object.keys(variablesIn(given, run.variables)).length === 0) return { check };
  return {
    check,
    async put(text, clear) {
      const { origins, element } = await focusTarget(page);
      try {
        for (const origin of origins)
          checkTypedWhere(given, run.variables, run.start.origin, origin);
        if (!element) {
          throw new VariableOriginRefused(
            `No field has the focus to put ${given} in: nothing was typed.`,
          );
        }
        await putValue(element, text, { replace: clear, perCharacter: !clear, shownAs: given });
      } finally {
        await element?.dispose().catch(() => {});
      }
    },
  };
}

/** Types `text` where the focus is: keys, or a variable's value put into the field. */
export async function typeAtFocus(
  run: AgentRun,
  page: PlaywrightPage,
  given: string,
  text: string,
  clear: boolean,
): Promise<void> {
  const typing = typingFor(run, page, given);
  await typing.check();
  await (typing.put ? typing.put(text, clear) : typeKeys(page, text, clear));
}

/** A run that began on no web page (about:blank) starts where it first goes. */
export function pinStart(run: AgentRun): void {
  if (run.start.origin === "null") run.start.origin = originOf(run.page().url());
}

/** The variables `text` names are about to be typed: hidden from now on. */
export function markTyped(run: AgentRun, text: string): void {
  const typed = variablesIn(text, run.variables);
  if (Object.keys(typed).length) run.actSettings.onVariablesUsed?.(typed);
}

/** The screen points are named in: the latest screenshot's, else the page's now. */
export async function screenNow(run: AgentRun): Promise<Screen> {
  return run.screens.latest ?? screenFor(run.page().playwrightPage);
}

/**
 * The screenshot after an action, of the page that is active once the action's effects have
 * arrived: a tab it opened, or the one left when it closed its own.
 */
export async function captureAfterAction(
  run: AgentRun,
  deadline: Deadline,
): Promise<{ page: PlaywrightPage; image: Buffer; screen: Screen }> {
  await run.newTabs.settled(Math.min(2_000, deadline.remaining()));
  for (let attempt = 0; ; attempt++) {
    const page = run.page().playwrightPage;
    try {
      const { image, screen } = await captureMasked(page, run.variables);
      // A call whose time ran out must not change what later points are mapped by.
      if (deadline.signal.aborted) throw deadline.signal.reason;
      run.screens.latest = screen;
      return { page, image, screen };
    } catch (error) {
      // A tab that closed itself is still "open" until Playwright hears of it.
      if (attempt >= 2) throw error;
      await closing(page, deadline);
    }
  }
}

/**
 * Runs an input on the page; when the input closed the page itself (a button calling
 * window.close()), the input's "target closed" error is what success looks like.
 */
export async function onPage(
  page: PlaywrightPage,
  deadline: Deadline,
  input: () => Promise<void>,
): Promise<void> {
  try {
    await input();
  } catch (error) {
    const closed = error instanceof Error && /closed/i.test(error.message);
    if (!closed || !(await closing(page, deadline))) throw error;
  }
}

/** Whether the page is closed, or closes within a moment. */
async function closing(page: PlaywrightPage, deadline: Deadline): Promise<boolean> {
  if (page.isClosed()) return true;
  const wait = Math.min(3_000, Math.max(1, deadline.remaining() - 500));
  return page
    .waitForEvent("close", { timeout: wait })
    .then(() => true)
    .catch(() => page.isClosed());
}

/** Shows the agent's cursor (highlightCursor) at a point of the latest screenshot. */
export async function showPoint(run: AgentRun, screen: Screen, at: { x: number; y: number }) {
  if (!run.highlightCursor) return;
  const p = toViewport(screen, at.x, at.y);
  await showCursorAt(run.page().playwrightPage, p.x, p.y);
}

export async function afterAction(
  run: AgentRun,
  deadline: Deadline,
  done: string,
  action: Record<string, unknown>,
): Promise<ToolOutput> {
  const { page, image, screen } = await captureAfterAction(run, deadline);
  return {
    text: `${done}. Screenshot after it (${screen.width}×${screen.height}) follows; the page is ${page.url()}`,
    image,
    action: { ...action, pageUrl: page.url() },
    perishable: true,
  };
}
