/**
 * Playwright's Chromium driver, imported with the first browser rather than at start: an idle
 * service holds none of its ~60 MB, and the first launch loads it while Chromium starts. A
 * service that keeps warm browsers imports it before it listens (Sessions.beforeListening).
 */
let playwright: Promise<typeof import("playwright-core")> | undefined;
export const chromiumDriver = () => {
  playwright ??= import("playwright-core");
  return playwright.then((loaded) => loaded.chromium);
};
