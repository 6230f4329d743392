/**
 * What a click made at once (directClick.ts) runs in the page: the aim (the element checked as
 * Playwright's click checks it, scrolled into view, the guard installed) and the guard's verdict.
 * Self-contained functions: they are sent as source, to the page's main world on an element
 * handle, or to Wayfarer's isolated world with the XPath that finds the element.
 */
import { identityIn } from "./elementIdentity.js";
import { inPage } from "./inPage.js";

/** Where to click, or why the page cannot be clicked at once. */
export type PageAim = { x: number; y: number } | { wait: string };

/** What the guard saw of the click's mouse events. */
export type Verdict = "done" | "none" | "lost" | { intercepted: string };

export interface AimRequest {
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

export const AIM = inPage(aimAt);

/** Runs in the page: ends the guard of `token` and says what it saw. */
function endGuard(token: string): Verdict {
  const guard = (window as unknown as Record<symbol, { token: string; stop: () => Verdict }>)[
    Symbol.for("wayfarer.directClick")
  ];
  return guard?.token === token ? guard.stop() : "lost";
}

/** endGuard for a call on an element (the element itself unused). */
export const VERDICT = new Function(
  "_",
  "token",
  `const __name = (f) => f; return (${endGuard.toString()})(token);`,
) as (element: Element, token: string) => Verdict;

/**
 * Source of a call, run in Wayfarer's isolated world: the one element `xpath` matches in the
 * document, aimed at as by `aimAt`. Its guard lives in that world too, out of the page's reach.
 */
export const aimAtXPathSource = (request: AimRequest & { xpath: string; identify: boolean }) =>
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

export const endGuardSource = (token: string) =>
  `(() => { const __name = (f) => f; return (${endGuard.toString()})(${JSON.stringify(token)}); })()`;

/**
 * Source of a call, run in Wayfarer's isolated world: whether the topmost element at (x, y) is a
 * frame's element (iframe, frame, object, embed), whose document a click there would reach
 * instead. Read with the browser's own functions, which the page's script cannot replace.
 */
export const frameAtSource = (x: number, y: number) =>
  `(() => {
  let hit = document.elementFromPoint(${x}, ${y});
  for (let inner = hit?.shadowRoot?.elementFromPoint(${x}, ${y}); inner && inner !== hit; ) {
    hit = inner;
    inner = hit.shadowRoot?.elementFromPoint(${x}, ${y});
  }
  return !hit || hit.matches("iframe, frame, object, embed");
})()`;
