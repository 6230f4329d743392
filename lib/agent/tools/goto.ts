import type { Page as PlaywrightPage } from "playwright-core";
import { z } from "zod";
import { NavigationRefusedError, navigationRefusal } from "../../browser/navigationPolicy.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "goto",
  description: "Open a URL in the current tab.",
  inputSchema: z.object({
    url: z.string().min(1).describe("An absolute http(s) URL"),
  }),
  async execute({ url }, run, deadline) {
    // The navigation-safety rule: no local files, browser pages or metadata addresses.
    const refused = await navigationRefusal(url, run.navigation);
    if (refused) throw new NavigationRefusedError(url, refused);
    const page = run.page();
    // Straight to Playwright: the agent's steps are its result's actions, not history entries.
    const pw = page.playwrightPage;
    const response = await pw
      .goto(url, {
        waitUntil: "domcontentloaded",
        // A moment is kept to stop a load that never ends, so that later steps can read the page.
        timeout: Math.max(1, deadline.remaining() - Math.min(1_000, deadline.remaining() / 4)),
      })
      .catch(async (error: unknown) => {
        await stopLoading(pw);
        throw error;
      });
    const status = response ? ` (HTTP ${response.status()})` : "";
    return { text: `Opened ${page.url()}${status}`, action: { pageUrl: page.url() } };
  },
});

async function stopLoading(page: PlaywrightPage): Promise<void> {
  const session = await page
    .context()
    .newCDPSession(page)
    .catch(() => undefined);
  await session?.send("Page.stopLoading").catch(() => {});
  await session?.detach().catch(() => {});
}
