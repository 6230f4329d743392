/**
 * A click with one check in the page instead of Playwright's chain of them. Playwright's
 * `click()` makes some ten CDP round trips before the mouse moves (the element adopted into its
 * utility world three times, the states, a `stable` wait of two animation frames, a scroll, the
 * content quads, the hit-target check): 25–30 ms on an idle machine, twice that under load, and
 * most of the time between the model's answer and the click reaching the page.
 *
 * Here one call into the page checks what those checks check, for an element that needs no
 * waiting: attached, in the main frame, enabled, visible, not moved by an animation, in the
 * viewport (scrolled there if not), the topmost element at its centre; and it installs the same
 * guard as Playwright's hit-target interceptor, which stops the mouse events that would land on
 * another element. Then the mouse clicks the centre. Whatever the check cannot vouch for, and
 * a click the guard stopped (nothing of it reached the page's handlers), goes through
 * Playwright's `click()`, with its waits, retries and errors, as before.
 *
 * Two ways in: on an element handle already resolved (`aimClick`, in the page's main world,
 * where the handle lives), or on an outline XPath (`aimClickAtXPath`: found and aimed at in one
 * CDP call in Wayfarer's isolated world, with no handle at all). docs/architecture/act.md gives
 * what each step costs.
 */
import type { CDPSession, ElementHandle, Frame, Page } from "playwright-core";
import type { ElementIdentity } from "../api/operations.js";
import type { Deadline } from "../timeout.js";
import {
  AIM,
  aimAtXPathSource,
  endGuardSource,
  frameAtSource,
  type PageAim,
  VERDICT,
  type Verdict,
} from "./clickAim.js";
import { sameIdentity } from "./elementIdentity.js";
import { isolatedWorld, ownSession } from "./frameSessions.js";
import { type NavigationWatch, watchNavigation } from "./navigationWatch.js";

export interface DirectClickOptions {
  button?: "left" | "right" | "middle";
  clickCount?: number;
}

let clicks = 0;
const nextToken = () => `${process.pid}-${++clicks}`;

/** A click aimed: where to press, and how to end the guard waiting for it (its verdict). */
export interface Aimed {
  x: number;
  y: number;
  end(): Promise<Verdict>;
  /** Watching the top document for the navigation a click may ask for. */
  navigation: Promise<NavigationWatch>;
  /** `end` is a call on the page's own session, and so the navigation watch's barrier too. */
  endsOnSession: boolean;
}

/** A click aimed, or why the element cannot be clicked at once. */
export type Aim = Aimed | { wait: string };

/** What aimClick says of an element that is out of view when it may not scroll. */
export const OUT_OF_VIEW = "out of view";

/**
 * Checks `element` (of `frame`) and aims a click at it, scrolling it into view if `scroll`;
 * else says why not (the caller then clicks through Playwright). An aimed click's guard is
 * installed: click with `clickAimed`, or take it down with `dropAim`.
 */
export async function aimClick(
  page: Page,
  frame: Frame,
  element: ElementHandle,
  scroll = true,
): Promise<Aim> {
  if (frame !== page.mainFrame()) return { wait: "in a frame" };
  const token = nextToken();
  const navigation = watchNavigation(page);
  const aim = await element.evaluate(AIM, { token, scroll }).catch(async (error: unknown) => {
    (await navigation).stop();
    throw error;
  });
  if ("wait" in aim) {
    (await navigation).stop();
    return aim;
  }
  // The aim ran in the page's main world, where the page's script can lie to it (a patched
  // elementFromPoint naming the element while a transparent frame lies over it): clickAimed
  // reads the point again in Wayfarer's world before it presses.
  // Read on the page's own session, in the main world where the aim ran: Playwright holds its
  // own calls while a navigation the click asked for is pending.
  const onSession = await mainWorldOf(page);
  if (!onSession) {
    return {
      ...aim,
      end: () => element.evaluate(VERDICT, token),
      navigation,
      endsOnSession: false,
    };
  }
  const end = endGuardSource(token);
  return { ...aim, end: () => onSession<Verdict>(end), navigation, endsOnSession: true };
}

/** Whether a frame's element, or nothing, is topmost at the point (no session known: true). */
async function frameAt(page: Page, { x, y }: { x: number; y: number }): Promise<boolean> {
  const owner = await ownSession(page, page.mainFrame());
  if (!owner) return true;
  const world = await isolatedWorld(owner, await owner.rootFrameId());
  return evaluator(owner.session, world)<boolean>(frameAtSource(x, y));
}

/** Evaluates in the main world of the top document on the page's own session, if known. */
async function mainWorldOf(
  page: Page,
): Promise<(<T>(expression: string) => Promise<T>) | undefined> {
  const owner = await ownSession(page, page.mainFrame()).catch(() => undefined);
  const mainId = await owner?.rootFrameId().catch(() => undefined);
  const contextId = [...(owner?.mainWorlds ?? [])].find(([, frameId]) => frameId === mainId)?.[0];
  return owner && contextId !== undefined ? evaluator(owner.session, contextId) : undefined;
}

/** Evaluates expressions in one execution context over `session`, their values returned. */
function evaluator(session: CDPSession, contextId: number) {
  return async <T>(expression: string): Promise<T> => {
    const { result, exceptionDetails } = await session.send("Runtime.evaluate", {
      expression,
      contextId,
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? "failed");
    return result.value as T;
  };
}

/**
 * The same for the one element an XPath matches in the top document, found and aimed at in one
 * CDP call on the page's own session, in Wayfarer's isolated world: no element handle, so none
 * of the round trips Playwright makes for one, nor its client's layers.
 */
export async function aimClickAtXPath(
  page: Page,
  xpath: string,
  { scroll = true, identify = false } = {},
): Promise<Aim & { identity?: ElementIdentity }> {
  const owner = await ownSession(page, page.mainFrame());
  if (!owner) return { wait: "no session" };
  const inWorld = evaluator(owner.session, await isolatedWorld(owner, await owner.rootFrameId()));
  const token = nextToken();
  const navigation = watchNavigation(page);
  const request = { xpath, token, scroll, identify };
  const aim = await inWorld<PageAim & { identity?: ElementIdentity }>(
    aimAtXPathSource(request),
  ).catch(async (error: unknown) => {
    (await navigation).stop();
    throw error;
  });
  if ("wait" in aim) {
    (await navigation).stop();
    return aim;
  }
  const end = endGuardSource(token);
  return { ...aim, end: () => inWorld<Verdict>(end), navigation, endsOnSession: true };
}

/** Takes down the guard of a click aimed but not made. */
export async function dropAim(aimed: Aim | undefined): Promise<void> {
  if (!aimed || !("end" in aimed)) return;
  (await aimed.navigation).stop();
  await aimed.end().catch(() => {});
}

/**
 * Clicks where `aimed` says. False when the guard stopped the click before the page saw any of
 * it (another element was there when the mouse came): the caller then clicks through
 * Playwright.
 */
export async function clickAimed(
  page: Page,
  aimed: Aimed,
  options: DirectClickOptions,
  deadline: Deadline,
): Promise<boolean> {
  if (deadline.signal.aborted) {
    await dropAim(aimed);
    throw deadline.signal.reason;
  }
  const navigation = await aimed.navigation;
  try {
    await page.mouse.move(aimed.x, aimed.y);
    // A frame the page lays over the element as the pointer arrives would take the press, and
    // the guard, in this document, would see none of it: the point is read again first.
    if (await frameAt(page, aimed).catch(() => true)) {
      await dropAim(aimed);
      return false;
    }
    // As Playwright's mouse.click, after its move.
    for (let clickCount = 1; clickCount <= (options.clickCount ?? 1); clickCount++) {
      await page.mouse.down({ button: options.button, clickCount });
      await page.mouse.up({ button: options.button, clickCount });
    }
  } catch (error) {
    await dropAim(aimed);
    throw error;
  }
  const verdict = await Promise.race([
    Promise.all([
      // A document the click replaced (a link followed) took its guard along: the click landed.
      aimed.end().catch((): Verdict => "done"),
      aimed.endsOnSession ? undefined : navigation.barrier(),
    ]).then(([seen]) => seen),
    // A click the guard stopped asks for no navigation; and while one is pending, Chromium holds
    // calls into its document (the verdict's too) until it commits.
    navigation.requested.then((): Verdict => "done"),
  ]);
  if (typeof verdict !== "string") {
    navigation.stop();
    return false;
  }
  // As Playwright's click: a navigation the click asked for is waited for until it commits.
  await navigation.settled(deadline);
  return true;
}

/** Aims and clicks at once; false when it did not click (see aimClick and clickAimed). */
export async function clickDirectly(
  page: Page,
  frame: Frame,
  element: ElementHandle,
  options: DirectClickOptions,
  deadline: Deadline,
): Promise<boolean> {
  const aimed = await aimClick(page, frame, element);
  return "end" in aimed ? clickAimed(page, aimed, options, deadline) : false;
}

/**
 * The usual click: on the outline's XPath of an element of the top document, found, checked,
 * aimed at and clicked with no element handle. `identity`: a guard's check of the element's
 * identity, read in the same call; the element is scrolled into view only once it agrees. False
 * when it did not click: the caller then takes the handle's way.
 */
export async function clickAtXPath(
  page: Page,
  xpath: string,
  identity: ((seen: ElementIdentity) => Promise<void>) | undefined,
  options: DirectClickOptions,
  deadline: Deadline,
): Promise<boolean> {
  // A page between documents, an XPath the engine refuses: the handle's way waits, or says.
  const aim = (scroll: boolean) =>
    aimClickAtXPath(page, xpath, { scroll, identify: !!identity }).catch(() => undefined);
  let aimed = await aim(!identity);
  if (!aimed) return false;
  if (identity) {
    // No single match: the handle's way waits for one, or says why not.
    const checked = aimed.identity;
    if (!checked) return false;
    await identity(checked).catch(async (error: unknown) => {
      await dropAim(aimed);
      throw error;
    });
    if (!("end" in aimed) && aimed.wait === OUT_OF_VIEW) {
      // Scrolled now, and clicked only if it is still the element checked.
      aimed = await aim(true);
      if (!aimed?.identity || !sameIdentity(aimed.identity, checked)) {
        await dropAim(aimed);
        return false;
      }
    }
  }
  return "end" in aimed ? clickAimed(page, aimed, options, deadline) : false;
}
