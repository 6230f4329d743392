/**
 * When a document's elements last changed. A script in Wayfarer's isolated world installs one
 * MutationObserver per document from its start, so a capture asks "how long has it been quiet"
 * instead of watching for a fixed while, and the page's own scripts see nothing of it. Documents
 * that existed before the script was registered get the observer on the first question.
 *
 * Changes made while the document loaded (the parser, scripts run before and during its load
 * event) do not count once it has loaded: load has taken them in. Nor do the changes an action
 * of ours made in the task that ran its input events (a click handler's own updates): they are
 * its result, the page is not moving because of them; what a timer or a later task changes is. A loaded document untouched since is at rest, and a
 * capture takes it at once.
 */
import type { CDPSession } from "playwright-core";

/** What `quietFor` says of a document untouched since its load: as quiet as it gets. */
export const AT_REST_MS = 2 ** 30;

export interface DomWatcher {
  /**
   * Milliseconds since an element was added or removed after load and after our last action
   * (`actionAge` ms ago, -1 if none: actionNotes.ts); AT_REST_MS if none was.
   */
  quietFor(actionAge?: number): number;
  /** Watches a shadow root too (a document's observer does not see into them). */
  observe(root: ShadowRoot): void;
  /**
   * Marks the document as just read, and answers the mark: `changedSince(mark)` is false until
   * anything changes (an element, an attribute, a text, a form field's value, the window's
   * size) or another mark is made. Watches every change only until the first one.
   */
  stamp(): number;
  changedSince(mark: number): boolean;
}

/** Runs in the isolated world: the watcher of this document, installed on first call. */
export function watchDom(): DomWatcher {
  const g = globalThis as unknown as { __wayfarerDom?: DomWatcher };
  if (g.__wayfarerDom) return g.__wayfarerDom;
  // On the document's own clock, to compare with its load event's end. A watcher that starts
  // on a loaded document (one that was there before our session) has seen no change yet.
  let last = document.readyState === "complete" ? 0 : performance.now();
  let started = false;
  const observed = new WeakSet<Node>();
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.addedNodes.length || r.removedNodes.length) {
        last = performance.now();
        return;
      }
    }
  });
  // The end of the task that ran our latest input event, on the document's clock: measured by a
  // zero-delay timer set as the event arrives, which runs before any the page's handlers set.
  let inputTaskEnd = 0;
  const onInput = (event: Event) => {
    if (event.isTrusted) setTimeout(() => (inputTaskEnd = performance.now()), 0);
  };
  for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "keydown"])
    addEventListener(type, onInput, { capture: true });
  for (const type of ["keyup", "input", "change"])
    addEventListener(type, onInput, { capture: true });
  // Since the latest stamp: any change at all, seen by an observer that stops at the first.
  // Marks start anywhere: a later document given a gone one's context id never answers to its
  // marks.
  let mark = Math.floor(Math.random() * 2 ** 40);
  let changed = true;
  const roots: WeakRef<Node>[] = [];
  const onChange = () => {
    changed = true;
    changes.disconnect();
  };
  const changes = new MutationObserver(onChange);
  const everything = { childList: true, subtree: true, attributes: true, characterData: true };
  for (const type of ["input", "change"])
    addEventListener(type, () => changed || onChange(), { capture: true });
  // The window's size as marked: read when asked, since a resize event waits for a frame.
  let size = "";
  const sizeNow = () => `${innerWidth}x${innerHeight}`;
  const watch = (node: Node) => {
    if (observed.has(node)) return;
    observed.add(node);
    roots.push(new WeakRef(node));
    observer.observe(node, { childList: true, subtree: true });
    if (!changed) changes.observe(node, everything);
  };
  // At document start there may be no element yet: start at the first chance.
  const start = () => {
    if (started || !document.documentElement) return;
    started = true;
    watch(document.documentElement);
  };
  start();
  if (!started) document.addEventListener("readystatechange", start, { once: true });
  g.__wayfarerDom = {
    quietFor: (actionAge = -1) => {
      start();
      const loadedAt = loadEnd();
      // The action's end on the document's clock, 1 ms early for the message's own transit.
      let actedAt = actionAge >= 0 ? performance.now() - actionAge - 1 : 0;
      // A zero-delay timer of the action's handlers may run before we hear the action ended:
      // what it changes is motion, not the action's own result. The input's task ended first.
      if (actionAge >= 0 && inputTaskEnd > actedAt - 1_000)
        actedAt = Math.min(actedAt, inputTaskEnd);
      const settledAt = Math.max(loadedAt, actedAt);
      // 2 ** 30 is AT_REST_MS: this runs in the page, where module constants do not exist.
      return loadedAt > 0 && last <= settledAt ? 2 ** 30 : performance.now() - last;
    },
    observe: watch,
    stamp: () => {
      start();
      changes.disconnect();
      changed = false;
      size = sizeNow();
      // The document itself too: a replaced root element is a change of the document's.
      changes.observe(document, everything);
      for (let i = roots.length - 1; i >= 0; i--) {
        const root = roots[i]!.deref();
        if (root) changes.observe(root, everything);
        else roots.splice(i, 1);
      }
      return ++mark;
    },
    changedSince: (since) => changed || since !== mark || size !== sizeNow(),
  };
  return g.__wayfarerDom;
}

/** Runs in the page: when the document's load event ended (its own clock); 0 before that. */
export function loadEnd(): number {
  if (document.readyState !== "complete") return 0;
  const [navigation] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
  return navigation?.loadEventEnd ?? 0;
}

/**
 * Runs in the isolated world: how long the document has been quiet. A document the watcher
 * has not seen from its start (it was there before our session was) is at rest once loaded:
 * nothing it did before can be known.
 */
export function quietFor(watchDom: () => DomWatcher, actionAge: number): number {
  const watched = "__wayfarerDom" in globalThis;
  const watcher = watchDom();
  if (watched) return watcher.quietFor(actionAge);
  return loadEnd() > 0 ? 2 ** 30 : 0;
}

/** Source of `watchDom` with a local `__name` (bundlers that keep names call it; see inPage.ts). */
const WATCH_DOM_SOURCE = `(() => { const __name = (f) => f; const loadEnd = ${loadEnd.toString()}; return (${watchDom.toString()}); })()`;

/** Source of `{ watch, quietFor }` for a walk in the isolated world. */
export const DOM_ACTIVITY_SOURCE = `(() => {
  const __name = (f) => f;
  const loadEnd = ${loadEnd.toString()};
  const watch = ${watchDom.toString()};
  return { watch, quietFor: (actionAge) => (${quietFor.toString()})(watch, actionAge) };
})()`;

/** Every new document of the session's target gets the watcher at its start. */
export async function watchNewDocuments(session: CDPSession, worldName: string): Promise<void> {
  await session.send("Page.addScriptToEvaluateOnNewDocument", {
    source: `${WATCH_DOM_SOURCE}();`,
    worldName,
  });
}
