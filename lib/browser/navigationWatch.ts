/**
 * What Playwright's `click()` does after its mouse events and `page.mouse.click()` does not: a
 * navigation of the top document that the click asked for (a link followed, a form submitted) is
 * waited for until it commits, so that once the click returns the page's URL is the new one (the
 * agent records it with the step, the next call reads the new page). Watched on the page's own
 * CDP session (frameSessions.ts): it sees Chromium's request for a navigation and its commit in
 * that order, and a call on the same session answered after the click is the barrier after
 * which a request the click made has been seen.
 */
import type { Page } from "playwright-core";
import type { Deadline } from "../timeout.js";
import { ownSession } from "./frameSessions.js";

export interface NavigationWatch {
  /**
   * Once a call on the page's session has answered after the click: waits for the navigation
   * the click asked for, if any, to commit (or to end without a document: a download, a 204),
   * and for Playwright's page to know its URL; for half the deadline's time left at most. Stops
   * watching.
   */
  settled(deadline: Deadline): Promise<void>;
  /** Sends a call on the page's session and waits for its answer: the barrier. */
  barrier(): Promise<void>;
  /** Settles once the top document is asked to navigate (never, if it is not). */
  requested: Promise<void>;
  stop(): void;
}

/**
 * No watch (no session of the page's own). Made per click: every click hangs a reaction on
 * `requested`, which never settles, and one shared promise would keep them all.
 */
const none = (): NavigationWatch => ({
  settled: async () => {},
  barrier: async () => {},
  requested: new Promise(() => {}),
  stop: () => {},
});

/** Starts watching the top document of `page` for navigations; call before the click. */
export async function watchNavigation(page: Page): Promise<NavigationWatch> {
  const owner = await ownSession(page, page.mainFrame()).catch(() => undefined);
  if (!owner) return none();
  const mainId = await owner.rootFrameId().catch(() => undefined);
  if (!mainId) return none();
  const { session } = owner;
  let requested = false;
  /** The URL committed (or reached within the document), or null when the navigation ended without one. */
  let outcome: string | null | undefined;
  let wake: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const end = (url: string | null) => {
    if (outcome !== undefined) return;
    outcome = url;
    wake();
  };
  let onRequest: () => void = () => {};
  const asked = new Promise<void>((resolve) => {
    onRequest = resolve;
  });
  const onRequested = (e: { frameId: string; disposition: string }) => {
    if (e.frameId !== mainId || e.disposition !== "currentTab") return;
    requested = true;
    onRequest();
  };
  const onNavigated = (e: {
    frame: { id: string; parentId?: string; url: string; urlFragment?: string };
  }) => {
    if (e.frame.id === mainId) end(e.frame.url + (e.frame.urlFragment ?? ""));
  };
  const onWithinDocument = (e: { frameId: string; url: string }) => {
    if (e.frameId === mainId) end(e.url);
  };
  // A load that stops, or a download that begins, after the click asked for a navigation: it
  // ended without a document.
  const onStopped = (e: { frameId: string }) => {
    if (e.frameId === mainId && requested) end(null);
  };
  session.on("Page.frameRequestedNavigation", onRequested);
  session.on("Page.frameNavigated", onNavigated);
  session.on("Page.navigatedWithinDocument", onWithinDocument);
  session.on("Page.frameStoppedLoading", onStopped);
  session.on("Page.downloadWillBegin", onStopped);
  const stop = () => {
    session.off("Page.frameRequestedNavigation", onRequested);
    session.off("Page.frameNavigated", onNavigated);
    session.off("Page.navigatedWithinDocument", onWithinDocument);
    session.off("Page.frameStoppedLoading", onStopped);
    session.off("Page.downloadWillBegin", onStopped);
    wake();
  };
  return {
    requested: asked,
    barrier: async () => {
      await session.send("Runtime.evaluate", { expression: "0" }).catch(() => {});
    },
    async settled(deadline) {
      try {
        if (!requested && outcome === undefined) return;
        // The click is done whatever the navigation does: half the time left, so that a
        // navigation that never commits fails neither the click nor its deadline.
        const bound = Date.now() + Math.floor(deadline.remaining() / 2);
        const timer = new Promise<void>((resolve) => {
          const t = setTimeout(resolve, bound - Date.now());
          void ended.then(() => clearTimeout(t));
        });
        await Promise.race([ended, timer]);
        const url = outcome;
        if (typeof url !== "string") return;
        // Playwright hears of the commit on its own session: its page's URL follows shortly.
        await page
          .mainFrame()
          .waitForURL((u) => u.href === url, {
            waitUntil: "commit",
            timeout: Math.max(1, bound - Date.now()),
          })
          .catch(() => {});
      } finally {
        stop();
      }
    },
    stop,
  };
}
