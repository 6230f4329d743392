/**
 * A browser someone else runs, attached to over its CDP endpoint (`cdpUrl`): closing lets go
 * of it or asks it to close, and nothing of ours is left behind either way.
 */
import { untilAborted } from "../timeout.js";
import { bounded } from "./boundedClose.js";
import { chromiumDriver } from "./chromiumDriver.js";
import type { LaunchedBrowser } from "./launchedBrowser.js";

export async function attach(
  cdpUrl: string,
  timeoutMs: number,
  signal?: AbortSignal,
  headers?: Record<string, string>,
): Promise<LaunchedBrowser> {
  const chromium = await chromiumDriver();
  signal?.throwIfAborted();
  const connecting = chromium.connectOverCDP(cdpUrl, {
    timeout: timeoutMs,
    ...(headers ? { headers } : {}),
  });
  const browser = await untilAborted(connecting, signal).catch((error: unknown) => {
    // A connection that completes after we gave up is let go at once.
    if (signal?.aborted) void connecting.then((late) => late.close()).catch(() => {});
    throw error;
  });
  // Hand out the WebSocket form so a later attach does not depend on the HTTP endpoint.
  const wsEndpoint = /^wss?:/.test(cdpUrl)
    ? cdpUrl
    : await fetchWsEndpoint(cdpUrl, timeoutMs, signal).catch(() => cdpUrl);
  if (signal?.aborted) {
    await bounded(browser.close());
    throw signal.reason;
  }
  let ended: Promise<void> | undefined;
  return {
    browser,
    wsEndpoint,
    hub: undefined,
    pid: undefined,
    userDataDir: undefined,
    launchDir: undefined,
    downloadsDir: undefined,
    executablePath: undefined,
    args: [],
    refusedArgs: [],
    terminate() {
      ended ??= (async () => {
        await bounded(browser.newBrowserCDPSession().then((s) => s.send("Browser.close")));
        await bounded(browser.close());
      })();
      return ended;
    },
    async detach() {
      await bounded(browser.close());
    },
  };
}

async function fetchWsEndpoint(
  httpUrl: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string> {
  const url = new URL("/json/version", httpUrl);
  const limit = AbortSignal.timeout(timeoutMs);
  const response = await fetch(url, { signal: signal ? AbortSignal.any([signal, limit]) : limit });
  const body = (await response.json()) as { webSocketDebuggerUrl?: string };
  if (!body.webSocketDebuggerUrl) throw new Error("no webSocketDebuggerUrl");
  return body.webSocketDebuggerUrl;
}
