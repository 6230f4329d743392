/**
 * When a document's element structure last changed. An init script installs one
 * MutationObserver per document from its start, so a capture asks "how long has it been quiet"
 * instead of watching for a fixed while. Documents that existed before the script (a browser we
 * attached to) get the observer on the first question.
 */
import type { BrowserContext, Frame } from "playwright-core";
import { inPage } from "./inPage.js";

const KEY = "wayfarer.domActivity";

/** Runs in every document: keeps the time of the last added or removed element. */
function watchDom(key: string): void {
  const symbol = Symbol.for(key);
  const g = globalThis as unknown as Record<symbol, unknown>;
  if (g[symbol]) return;
  let last = Date.now();
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.addedNodes.length || r.removedNodes.length) {
        last = Date.now();
        return;
      }
    }
  });
  const start = () =>
    observer.observe(document.documentElement ?? document, { childList: true, subtree: true });
  if (document.documentElement) start();
  else document.addEventListener("readystatechange", start, { once: true });
  Object.defineProperty(g, symbol, { value: () => Date.now() - last, enumerable: false });
}

export async function watchDomActivity(context: BrowserContext): Promise<void> {
  // A local __name: bundlers that keep function names rewrite inner functions to call it.
  const source = `{ const __name = (f) => f; (${watchDom.toString()})(${JSON.stringify(KEY)}); }`;
  await context.addInitScript(source);
}

const QUIET_FOR = inPage((key: string): number => {
  const g = globalThis as unknown as Record<symbol, (() => number) | undefined>;
  const quietFor = g[Symbol.for(key)];
  return quietFor ? quietFor() : -1;
});

const WATCH = inPage(watchDom);

/** Milliseconds since the frame's elements last changed (0 when it was not watched until now). */
export async function domQuietFor(frame: Frame): Promise<number> {
  const quiet = await frame.evaluate(QUIET_FOR, KEY);
  if (quiet >= 0) return quiet;
  await frame.evaluate(WATCH, KEY);
  return 0;
}
