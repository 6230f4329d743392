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
    const response = await page.playwrightPage.goto(url, {
      waitUntil: "domcontentloaded",
      timeout: deadline.remaining(),
    });
    const status = response ? ` (HTTP ${response.status()})` : "";
    return { text: `Opened ${page.url()}${status}`, action: { pageUrl: page.url() } };
  },
});
