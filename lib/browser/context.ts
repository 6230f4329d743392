/**
 * The pages of the browser context and which one is active. A page the browser opens by itself
 * (popup, target=_blank, window.open) is tracked and becomes active, like a new tab a user sees.
 */
import type { BrowserContext, Page as PlaywrightPage } from "playwright-core";
import { ServiceError } from "../errors.js";
import type { Logger } from "../log.js";
import { parseInput, TimeoutSchema } from "../options.js";
import { awaitAtMost, DEFAULT_TIMEOUT_MS, withTimeout } from "../timeout.js";
import { watchCrashes } from "./crashes.js";
import { type DialogDuty, settleDialogs } from "./dialogs.js";
import { ownSession } from "./frameSessions.js";
import {
  guardNavigations,
  type NavigationAllowance,
  navigationRefusal,
} from "./navigationPolicy.js";
import { networkActivity } from "./networkActivity.js";
import { type NewTabs, NO_TABS, watchNewTabs } from "./newTabs.js";
import { Page, type PageHooks } from "./page.js";

/** The longest init() waits to size, and to open our session on, a tab already there. */
const WATCH_WAIT_MS = 2_000;

export interface ContextSettings {
  dialogs: DialogDuty;
  viewport: { width: number; height: number } | undefined;
  logger: Logger;
  hooks: PageHooks;
  /**
   * Pages open at once: newPage refuses to pass it. Pages others open past it (popups, a CDP
   * client's tabs) are closed by the browser's hub as they are made (CdpHub.capPages).
   */
  pageLimit?: PageLimit;
}

export interface PageLimit {
  max: number;
  /** What sets it, for the log line and the error (a service's variable). */
  setBy: string;
}

export class Context {
  private readonly wrapped = new WeakMap<PlaywrightPage, Page>();
  private readonly open: Page[] = [];
  private active: Page | undefined;
  private tabs: Promise<NewTabs> | undefined;

  constructor(
    /** The Playwright context underneath. */
    readonly playwrightContext: BrowserContext,
    private readonly settings: ContextSettings,
  ) {
    playwrightContext.on("page", (p) => {
      // A page the browser opened by itself (popup, new tab) becomes the active one.
      this.active = this.adopt(p);
      void this.sized(p);
      settings.logger.debug("context", "new page is now active", { url: p.url() });
    });
  }

  /** Takes in the pages that exist already (attach, first page); the first becomes active. */
  async adoptExisting(): Promise<void> {
    const pages = this.playwrightContext.pages();
    for (const p of pages) this.adopt(p);
    // All at once, and a tab whose renderer does not answer does not hold init().
    await Promise.all(
      pages.map((p) =>
        Promise.all([this.sized(p), this.watching(p)].map((w) => awaitAtMost(w, WATCH_WAIT_MS))),
      ),
    );
    this.active ??= this.open[0];
  }

  /**
   * Tabs being opened, watched from the first call on (a browser-wide CDP session, so not before
   * an action needs it): after an action, `settled()` waits for the tabs it opened.
   */
  newTabs(): Promise<NewTabs> {
    this.tabs ??= watchNewTabs(this.playwrightContext).catch((error: unknown) => {
      // Without it, act returns before a tab it opened is active: worth a line, not a failure.
      this.settings.logger.warn("context", "could not watch for new tabs", {
        error: error instanceof Error ? error.message : String(error),
      });
      return NO_TABS;
    });
    return this.tabs;
  }

  /**
   * From now on, every document this browser loads (redirect hops, navigations a page starts,
   * frames, popups) must pass the navigation policy: http(s), about and data only, and no
   * link-local or cloud-metadata address, unless `allow` says otherwise. A refused one fails as
   * blocked. Answers the function that lifts the guard.
   */
  async guardNavigations(allow: NavigationAllowance = {}): Promise<() => Promise<void>> {
    const browser = this.playwrightContext.browser();
    if (!browser) throw new ServiceError("guardNavigations: this context has no browser to guard.");
    return guardNavigations(browser, (url) => navigationRefusal(url, allow));
  }

  pages(): Page[] {
    return [...this.open];
  }

  /** The open page that is `given`, or has `given` (a Playwright page) under it. */
  pageOf(given: object): Page | undefined {
    return this.open.find((p) => p === given || p.playwrightPage === given);
  }

  activePage(): Page | undefined {
    if (this.active?.isClosed()) this.active = this.open[this.open.length - 1];
    return this.active;
  }

  setActivePage(page: Page): void {
    if (!this.open.includes(page)) {
      throw new ServiceError(
        "setActivePage: that page does not belong to this client's context (or it was closed).",
      );
    }
    this.active = page;
  }

  async newPage(options: { timeout?: number } = {}): Promise<Page> {
    const timeout = parseInput(
      TimeoutSchema.optional(),
      options.timeout,
      "newPage.options.timeout",
    );
    const limit = this.settings.pageLimit;
    if (limit && this.open.length >= limit.max) {
      throw new ServiceError(
        `newPage: ${this.open.length} pages are open, the most this browser may have (${limit.setBy}); close one first.`,
      );
    }
    return withTimeout("newPage", timeout ?? DEFAULT_TIMEOUT_MS, "a new tab to open", async () => {
      const p = await this.playwrightContext.newPage();
      const page = this.adopt(p);
      await Promise.all([this.sized(p), this.watching(p)]);
      this.active = page;
      return page;
    });
  }

  private adopt(p: PlaywrightPage): Page {
    const known = this.wrapped.get(p);
    if (known) return known;
    const page = new Page(p, this.settings.hooks);
    this.wrapped.set(p, page);
    this.open.push(page);
    settleDialogs(p, this.settings.dialogs, this.settings.logger);
    networkActivity(p);
    watchCrashes(p);
    this.watching(p);
    p.once("close", () => {
      const i = this.open.indexOf(page);
      if (i !== -1) this.open.splice(i, 1);
      if (this.active === page) this.active = this.open[this.open.length - 1];
    });
    return page;
  }

  /**
   * Our session on the page, opened at adoption so that the next document is watched from its
   * start (settling needs to know whether its elements changed after load). A page we open
   * ourselves waits for it: one round trip, which the first capture would pay anyway.
   */
  private watching(p: PlaywrightPage): Promise<unknown> {
    return ownSession(p, p.mainFrame()).catch(() => undefined);
  }

  private async sized(p: PlaywrightPage): Promise<void> {
    // A page closed meanwhile has no viewport to set; that is not an error.
    if (this.settings.viewport) await p.setViewportSize(this.settings.viewport).catch(() => {});
  }
}
