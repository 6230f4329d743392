/**
 * Tabs that are being opened. CDP announces a page target with an opener (target=_blank,
 * window.open) as soon as the browser creates it, while Playwright hands out its Page, which
 * the Context then makes active, some 100 ms later. Waiting for those after an action lets the
 * next step work on the tab the action opened, not on the one before.
 */
import type { BrowserContext } from "playwright-core";
import { sleep } from "../timeout.js";

export interface NewTabs {
  /** Resolves once every tab announced so far is a Page of the context, or after `timeoutMs`. */
  settled(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export const NO_TABS: NewTabs = { settled: async () => {}, stop: async () => {} };

export async function watchNewTabs(context: BrowserContext): Promise<NewTabs> {
  const browser = context.browser();
  if (!browser) return NO_TABS;
  const session = await browser.newBrowserCDPSession();
  const pending = new Set<string>();
  let listening = false;
  session.on("Target.targetCreated", ({ targetInfo }) => {
    if (listening && targetInfo.type === "page" && targetInfo.openerId) {
      pending.add(targetInfo.targetId);
    }
  });
  session.on("Target.targetDestroyed", ({ targetId }) => pending.delete(targetId));
  // Playwright's Page does not say which target it is: one arrival settles one announcement.
  const onPage = () => {
    const first = pending.values().next();
    if (!first.done) pending.delete(first.value);
  };
  context.on("page", onPage);
  // Existing targets are announced before the answer, and are not counted.
  await session.send("Target.setDiscoverTargets", { discover: true });
  listening = true;
  return {
    async settled(timeoutMs = 2_000) {
      const until = Date.now() + timeoutMs;
      while (pending.size && Date.now() < until) await sleep(10);
      pending.clear();
    },
    async stop() {
      context.off("page", onPage);
      await session.detach().catch(() => {});
    },
  };
}
