/**
 * Answers proxy credential challenges for every page of the browser. Playwright supplies proxy
 * credentials only to contexts it creates with a proxy, not to the default context of a browser
 * it attached to, so we do it on the browser's own CDP session.
 */
import type { Browser, CDPSession } from "playwright-core";

export async function answerProxyChallenges(
  browser: Browser,
  credentials: { username: string; password: string },
): Promise<CDPSession> {
  const session = await browser.newBrowserCDPSession();
  session.on("Fetch.requestPaused", (event) => {
    session.send("Fetch.continueRequest", { requestId: event.requestId }).catch(() => {});
  });
  const attempted = new Set<string>();
  session.on("Fetch.authRequired", (event) => {
    const isProxy = event.authChallenge.source === "Proxy";
    // One try per request: wrong credentials must fail, not loop.
    const response = !isProxy
      ? "Default"
      : attempted.has(event.requestId)
        ? "CancelAuth"
        : "ProvideCredentials";
    if (response === "ProvideCredentials") attempted.add(event.requestId);
    session
      .send("Fetch.continueWithAuth", {
        requestId: event.requestId,
        authChallengeResponse: { response, ...credentials },
      })
      .catch(() => {});
  });
  await session.send("Fetch.enable", { handleAuthRequests: true, patterns: [{ urlPattern: "*" }] });
  return session;
}
