/**
 * When a document's elements last changed. A script in Wayfarer's isolated world installs one
 * MutationObserver per document from its start, so a capture asks "how long has it been quiet"
 * instead of watching for a fixed while, and the page's own scripts see nothing of it. Documents
 * that existed before the script was registered get the observer on the first question.
 */
import type { CDPSession } from "playwright-core";

export interface DomWatcher {
  /** Milliseconds since an element was added or removed. */
  quietFor(): number;
  /** Watches a shadow root too (a document's observer does not see into them). */
  observe(root: ShadowRoot): void;
}

/** Runs in the isolated world: the watcher of this document, installed on first call. */
export function watchDom(): DomWatcher {
  const g = globalThis as unknown as { __wayfarerDom?: DomWatcher };
  if (g.__wayfarerDom) return g.__wayfarerDom;
  let last = Date.now();
  let started = false;
  const observed = new WeakSet<Node>();
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.addedNodes.length || r.removedNodes.length) {
        last = Date.now();
        return;
      }
    }
  });
  const watch = (node: Node) => {
    if (observed.has(node)) return;
    observed.add(node);
    observer.observe(node, { childList: true, subtree: true });
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
    quietFor: () => {
      start();
      return Date.now() - last;
    },
    observe: watch,
  };
  return g.__wayfarerDom;
}

/**
 * Runs in the isolated world: how long the document has been quiet. A document the watcher
 * has not seen from its start (it was there before our session was) counts from its load.
 */
export function quietFor(watchDom: () => DomWatcher): number {
  const watched = "__wayfarerDom" in globalThis;
  const watcher = watchDom();
  if (watched) return watcher.quietFor();
  if (document.readyState !== "complete") return 0;
  const [navigation] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
  return navigation?.loadEventEnd ? performance.now() - navigation.loadEventEnd : 0;
}

/** Source of `watchDom` with a local `__name` (bundlers that keep names call it; see inPage.ts). */
export const WATCH_DOM_SOURCE = `(() => { const __name = (f) => f; return (${watchDom.toString()}); })()`;

/** Every new document of the session's target gets the watcher at its start. */
export async function watchNewDocuments(session: CDPSession, worldName: string): Promise<void> {
  await session.send("Page.addScriptToEvaluateOnNewDocument", {
    source: `${WATCH_DOM_SOURCE}();`,
    worldName,
  });
}
