/**
 * Tabs that are being opened. CDP announces a page target with an opener (target=_blank,
 * window.open) as soon as the browser creates it, while Playwright hands out its Page, which
 * the Context then makes active, some 100 ms later. Waiting for those after an action lets the
 * next step work on the tab the action opened, not on the one before.
 */
import type { BrowserContext, Page as PlaywrightPage } from "playwright-core";
import { sleep } from "../timeout.js";

export interface NewTabs {
  /** Resolves once every tab announced lately is a Page of the context, or after `timeoutMs`. */
  settled(timeoutMs?: number): Promise<void>;
}

export const NO_TABS: NewTabs = { settled: async () => {} };

/** A tab announced this long ago and still not a Page is not waited for any more. */
const FORGET_AFTER_MS = 2_000;

export async function watchNewTabs(context: BrowserContext): Promise<NewTabs> {
  const browser = context.browser();
  if (!browser) return NO_TABS;
  // Only this context's tabs: the browser-wide session also sees other contexts' windows.
  const first = context.pages()[0];
  const ours = first ? (await targetOf(first))?.browserContextId : undefined;
  const session = await browser.newBrowserCDPSession();
  /** Announced tabs not yet Pages: target id → when announced. */
  const pending = new Map<string, number>();
  let listening = false;
  session.on("Target.targetCreated", ({ targetInfo }) => {
    if (!listening || targetInfo.type !== "page" || !targetInfo.openerId) return;
    if (ours && targetInfo.browserContextId !== ours) return;
    pending.set(targetInfo.targetId, Date.now());
  });
  session.on("Target.targetDestroyed", ({ targetId }) => pending.delete(targetId));
  const onPage = (page: PlaywrightPage) => {
    void targetOf(page).then((info) => {
      if (info) pending.delete(info.targetId);
    });
  };
  // Watched for the context's life: the session ends with the browser.
  context.on("page", onPage);
  // Existing targets are announced before the answer, and are not counted.
  await session.send("Target.setDiscoverTargets", { discover: true });
  listening = true;
  return {
    async settled(timeoutMs = FORGET_AFTER_MS) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const now = Date.now();
        for (const [id, at] of pending) if (now - at > FORGET_AFTER_MS) pending.delete(id);
        if (!pending.size || now >= until) return;
        await sleep(10);
      }
    },
  };
}

async function targetOf(
  page: PlaywrightPage,
): Promise<{ targetId: string; browserContextId?: string } | undefined> {
  try {
    const session = await page.context().newCDPSession(page);
    const { targetInfo } = await session.send("Target.getTargetInfo");
    await session.detach().catch(() => {});
    return targetInfo;
  } catch {
    return undefined;
  }
}
