/**
 * A session's browser as `/start`'s `browser` field asked for it, once lib/service/startBrowser.ts
 * decided what is honoured: the options it is launched with (behind the egress guard) or the
 * caller's browser it attaches to, how long that may take, what every one of its pages emulates,
 * and where its downloads go.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import type { Context } from "../browser/context.js";
import type { Engine } from "../engine/engine.js";
import { ServiceTimeoutError } from "../errors.js";
import type { AddressRule } from "../net/addressRule.js";
import type { LocalBrowserLaunchOptions } from "../options.js";
import { readableReason } from "../readableError.js";
import { withTimeout } from "../timeout.js";
import { CallerBrowserUnreachable } from "./serviceErrors.js";

/** What every page of the session emulates (the reference's launch options of the same names). */
export interface PageSettings {
  locale?: string;
  deviceScaleFactor?: number;
  hasTouch?: boolean;
}

export interface SessionBrowser {
  /** The caller's launch options the service honours (those of the operator's opt-in among them). */
  launch: Pick<
    LocalBrowserLaunchOptions,
    "executablePath" | "args" | "ignoreDefaultArgs" | "userDataDir" | "ignoreHTTPSErrors"
  >;
  /** The caller's own browser instead: its address as given (answered back), and as judged. */
  attach?: { given: string; url: string; headers?: Record<string, string> };
  pages?: PageSettings;
  /** `acceptDownloads: false`, or the operator-allowed `downloadsPath`. */
  downloads?: { deny: true } | { folder: string };
  /** How long launching or attaching may take (the launch's own limit otherwise). */
  connectTimeoutMs?: number;
  /** What was ignored or changed of what was asked, for the session's log. */
  notes: string[];
}

type Viewport = { width: number; height: number };

/**
 * Whether a blank browser launched ahead (lib/service/warmBrowsers.ts) is the browser this
 * session would launch: no launch option of the caller's (a binary, switches, a profile, a
 * locale's `--accept-lang`: all set at launch) and no browser of the caller's. What is set once
 * the browser runs (the viewport, page emulation, downloads) is set on it as on a fresh one.
 */
export function warmWillDo(browser: SessionBrowser | undefined): boolean {
  return !browser?.attach && Object.keys(browser?.launch ?? {}).length === 0;
}

/**
 * The engine options of the session's browser. Launched: every request through the egress guard.
 * Attached: the caller's browser reaches the caller's network, not ours, so no guard (its address
 * was judged by the rule instead); no page cap, watchdog or browser user either, which guard this
 * host's processes.
 */
export function browserOptions(
  browser: SessionBrowser | undefined,
  viewport: Viewport | undefined,
  rule: AddressRule,
): { egress?: { refuse: AddressRule["refuse"]; allowHosts: readonly string[] } } & {
  localBrowserLaunchOptions: LocalBrowserLaunchOptions;
} {
  const sized = viewport ? { viewport } : {};
  if (browser?.attach) {
    const { url, headers } = browser.attach;
    return {
      localBrowserLaunchOptions: {
        cdpUrl: url,
        ...(headers ? { cdpHeaders: headers } : {}),
        ...sized,
      },
    };
  }
  return {
    egress: { refuse: rule.refuse, allowHosts: rule.allowHosts ?? [] },
    localBrowserLaunchOptions: { ...browser?.launch, ...sized },
  };
}

/**
 * Launches or attaches within the caller's connectTimeoutMs, then applies the page settings and
 * downloads; on any failure nothing is left running (an attached browser is only let go).
 */
export async function openBrowser(
  engine: Engine,
  browser: SessionBrowser | undefined,
  viewport: Viewport | undefined,
  /** A browser launched ahead, at the default window size: its windows take the viewport's. */
  warm = false,
): Promise<Context> {
  const limit = browser?.connectTimeoutMs;
  const attach = browser?.attach;
  try {
    const ready =
      limit === undefined
        ? engine.init()
        : withTimeout(
            "start",
            limit,
            attach ? "your browser to answer" : "the browser to start",
            () => engine.init(),
            { advice: "Raise browser.launchOptions.connectTimeoutMs (30000 at most)" },
          );
    const context = await ready.catch((error: unknown) => {
      if (!attach || error instanceof ServiceTimeoutError) throw error;
      const origin = URL.parse(attach.given)?.origin ?? "browser.cdpUrl";
      throw new CallerBrowserUnreachable(
        `could not attach to your browser at ${origin}: ${readableReason(error)}`,
        { cause: error },
      );
    });
    if (warm && viewport) await sizeWindows(context, viewport);
    if (browser?.pages) await emulatePages(context, browser.pages, viewport);
    if (browser?.downloads) await setDownloads(context, browser.downloads);
    return context;
  } catch (error) {
    await engine.close({ force: true });
    throw error;
  }
}

/**
 * Every page of the context, and each one it opens, gets the settings over a CDP session of its
 * own that lives as long as the page (an override ends with the session that set it). The
 * viewport is set first, through Playwright: it sets the device scale too (to 1), so ours must
 * come after it.
 */
async function emulatePages(
  context: Context,
  settings: PageSettings,
  viewport: Viewport | undefined,
): Promise<void> {
  const playwright = context.playwrightContext;
  const userAgent = settings.locale ? await browserUserAgent(context) : undefined;
  const done = new WeakSet<PlaywrightPage>();
  const emulate = async (page: PlaywrightPage) => {
    if (done.has(page)) return;
    done.add(page);
    if (viewport) await page.setViewportSize(viewport);
    const cdp = await playwright.newCDPSession(page);
    const calls: Promise<unknown>[] = [];
    if (settings.deviceScaleFactor !== undefined) {
      calls.push(
        cdp.send("Emulation.setDeviceMetricsOverride", {
          // 0: the page keeps its size (the window's, or the viewport set above).
          width: viewport?.width ?? 0,
          height: viewport?.height ?? 0,
          deviceScaleFactor: settings.deviceScaleFactor,
          mobile: false,
        }),
      );
    }
    if (settings.locale) {
      // Intl's locale; navigator.language and Accept-Language follow the user agent's override.
      calls.push(cdp.send("Emulation.setLocaleOverride", { locale: settings.locale }));
      if (userAgent) {
        calls.push(
          cdp.send("Emulation.setUserAgentOverride", {
            userAgent,
            acceptLanguage: settings.locale,
          }),
        );
      }
    }
    if (settings.hasTouch) {
      calls.push(
        cdp.send("Emulation.setTouchEmulationEnabled", { enabled: true, maxTouchPoints: 1 }),
      );
    }
    await Promise.all(calls);
  };
  // A page closed meanwhile has nothing to emulate: not an error.
  playwright.on("page", (page) => void emulate(page).catch(() => {}));
  await Promise.all(context.pages().map((page) => emulate(page.playwrightPage)));
}

/**
 * A browser launched with a viewport has windows of that size (`--window-size`, what
 * `window.outerWidth` reads); a warm one was launched before the viewport was known, so each of
 * its windows is given that size, the first now and each new one as it opens.
 */
async function sizeWindows(context: Context, viewport: Viewport): Promise<void> {
  const playwright = context.playwrightContext;
  const size = async (page: PlaywrightPage) => {
    const cdp = await playwright.newCDPSession(page);
    const { windowId } = await cdp.send("Browser.getWindowForTarget");
    await cdp.send("Browser.setWindowBounds", { windowId, bounds: viewport });
    await cdp.detach().catch(() => {});
  };
  // A page closed meanwhile has no window to size: not an error.
  playwright.on("page", (page) => void size(page).catch(() => {}));
  await Promise.all(context.pages().map((page) => size(page.playwrightPage).catch(() => {})));
}

async function browserUserAgent(context: Context): Promise<string | undefined> {
  const browser = context.playwrightContext.browser();
  const cdp = await browser?.newBrowserCDPSession();
  const version = await cdp?.send("Browser.getVersion");
  await cdp?.detach().catch(() => {});
  return version?.userAgent;
}

/**
 * Downloads refused, or saved in the operator-allowed folder. Over a browser session kept for
 * the browser's life: the behaviour may end with the session that set it.
 */
async function setDownloads(
  context: Context,
  downloads: NonNullable<SessionBrowser["downloads"]>,
): Promise<void> {
  const cdp = await context.playwrightContext.browser()?.newBrowserCDPSession();
  await cdp?.send(
    "Browser.setDownloadBehavior",
    "deny" in downloads
      ? { behavior: "deny" }
      : { behavior: "allow", downloadPath: downloads.folder, eventsEnabled: true },
  );
}
