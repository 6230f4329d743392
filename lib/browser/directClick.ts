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
import { identityIn } from "./elementIdentity.js";
import { isolatedWorld, ownSession } from "./frameSessions.js";
import { inPage } from "./inPage.js";
import { type NavigationWatch, watchNavigation } from "./navigationWatch.js";

export interface DirectClickOptions {
  button?: "left" | "right" | "middle";
  clickCount?: number;
}

/** Where to click, or why the page cannot be clicked at once. */
type PageAim = { x: number; y: number } | { wait: string };

/** What the guard saw of the click's mouse events. */
type Verdict = "done" | "none" | "lost" | { intercepted: string };

interface AimRequest {
  token: string;
  scroll: boolean;
}

/**
 * Runs in the page: checks `node` as Playwright's click would before acting, scrolls it into
 * view, and installs the guard for the click to come, under `token`.
 */
function aimAt(node: Element, { token, scroll }: AimRequest): PageAim {
  const registry = Symbol.for("wayfarer.directClick");
  type Guard = { token: string; stop: () => Verdict };
  const holder = window as unknown as Record<symbol, Guard | undefined>;
  // A guard left over from a click whose verdict was never read judges no other click.
  holder[registry]?.stop();
  if (!node.isConnected) return { wait: "not attached" };
  if (window.top !== window) return { wait: "in a frame" };
  // Pinch-zoomed, the viewport's coordinates are not the mouse's.
  if (visualViewport && visualViewport.scale !== 1) return { wait: "zoomed" };
  // Playwright's event target: a button or link around what was named.
  const target =
    node.matches("input, textarea, select") || (node as HTMLElement).isContentEditable
      ? node
      : (node.closest("button, [role=button], a, [role=link]") ?? node);
  // A closed shadow root hides the target from the events' paths the guard reads.
  for (let root = target.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode())
    if (root.mode === "closed") return { wait: "in a closed shadow root" };
  // Enabled: the element, the control a label stands for, and any aria-disabled above them.
  const label = node.closest("label");
  for (const el of [node, target, label?.control ?? null]) {
    if (!el) continue;
    if (el.matches(":disabled")) return { wait: "disabled" };
    if (el.closest("[aria-disabled]")?.getAttribute("aria-disabled")?.toLowerCase() === "true")
      return { wait: "aria-disabled" };
  }
  // Visible: rendered, not visibility:hidden, with an area.
  const style = getComputedStyle(node);
  if (style.display === "contents") return { wait: "display: contents" };
  if (!node.checkVisibility({ visibilityProperty: true })) return { wait: "not visible" };
  // Stable: an animation or transition running on it or an ancestor may be moving it.
  for (const animation of document.getAnimations()) {
    const moved = (animation.effect as KeyframeEffect | null)?.target;
    if (animation.playState === "running" && moved && moved.contains(node))
      return { wait: "animated" };
  }
  let rect = node.getBoundingClientRect();
  if (rect.width <= 0 || rect.height <= 0) return { wait: "no size" };
  const inView = (r: DOMRect) =>
    r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  if (!inView(rect)) {
    if (!scroll) return { wait: "out of view" };
    node.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    rect = node.getBoundingClientRect();
  }
  // The centre of the part in the viewport.
  const left = Math.max(rect.left, 0);
  const right = Math.min(rect.right, innerWidth);
  const top = Math.max(rect.top, 0);
  const bottom = Math.min(rect.bottom, innerHeight);
  if (right - left < 1 || bottom - top < 1) return { wait: "outside the viewport" };
  const x = (left + right) / 2;
  const y = (top + bottom) / 2;
  // Receives events: the topmost element there is the target or inside it.
  const ownerOf = (el: Element): Element | null =>
    el.assignedSlot ??
    el.parentElement ??
    (el.parentNode instanceof ShadowRoot ? el.parentNode.host : null);
  let hit = document.elementFromPoint(x, y);
  for (let inner = hit?.shadowRoot?.elementFromPoint(x, y); inner && inner !== hit; ) {
    hit = inner;
    inner = hit.shadowRoot?.elementFromPoint(x, y);
  }
  let at = hit;
  while (at && at !== target) at = ownerOf(at);
  if (!at) return { wait: "covered" };
  // The guard: the first trusted mouse event tells whether the click lands on the target; if
  // not, that event and the click's others are stopped before any handler of the page.
  const types = [
    "pointerdown",
    "mousedown",
    "pointerup",
    "mouseup",
    "click",
    "auxclick",
    "dblclick",
    "contextmenu",
  ];
  let verdict: Verdict | undefined;
  const listener = (event: Event) => {
    if (!event.isTrusted) return;
    if (verdict === undefined) {
      const path = event.composedPath();
      const landed = path[0] instanceof Element ? path[0].localName : "nothing";
      verdict = path.includes(target) ? "done" : { intercepted: landed };
    }
    if (verdict !== "done") {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  };
  for (const type of types) addEventListener(type, listener, { capture: true });
  const stop = (): Verdict => {
    for (const type of types) removeEventListener(type, listener, { capture: true });
    clearTimeout(timer);
    if (holder[registry]?.token === token) holder[registry] = undefined;
    return verdict ?? "none";
  };
  // Never left judging later clicks: the mouse events follow within milliseconds.
  const timer = setTimeout(stop, 5_000);
  holder[registry] = { token, stop };
  return { x, y };
}

const AIM = inPage(aimAt);

/** Runs in the page: ends the guard of `token` and says what it saw. */
function endGuard(token: string): Verdict {
  const guard = (window as unknown as Record<symbol, { token: string; stop: () => Verdict }>)[
    Symbol.for("wayfarer.directClick")
  ];
  return guard?.token === token ? guard.stop() : "lost";
}

/** endGuard for a call on an element (the element itself unused). */
const VERDICT = new Function(
  "_",
  "token",
  `const __name = (f) => f; return (${endGuard.toString()})(token);`,
) as (element: Element, token: string) => Verdict;

/**
 * Source of a call, run in Wayfarer's isolated world: the one element `xpath` matches in the
 * document, aimed at as by `aimAt`. Its guard lives in that world too, out of the page's reach.
 */
const aimAtXPathSource = (request: AimRequest & { xpath: string; identify: boolean }) =>
  `(() => {
  const __name = (f) => f;
  const aimAt = ${aimAt.toString()};
  const identityIn = ${identityIn.toString()};
  const request = ${JSON.stringify(request)};
  const found = document.evaluate(request.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  const node = found.snapshotLength === 1 ? found.snapshotItem(0) : null;
  if (!node || node.nodeType !== Node.ELEMENT_NODE) return { wait: "no single match" };
  const identity = request.identify ? identityIn(node) : undefined;
  return { ...aimAt(node, request), identity };
})()`;

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

const endGuardSource = (token: string) =>
  `(() => { const __name = (f) => f; return (${endGuard.toString()})(${JSON.stringify(token)}); })()`;

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
    await page.mouse.click(aimed.x, aimed.y, {
      button: options.button,
      clickCount: options.clickCount,
    });
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
