import { z } from "zod";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "back",
  description: "Go back one page, as the browser's Back button.",
  unreplayableOnError: true,
  inputSchema: z.object({}),
  async execute(_input, run, deadline) {
    const page = run.page();
    const before = page.url();
    await page.playwrightPage.goBack({
      waitUntil: "domcontentloaded",
      timeout: deadline.remaining(),
    });
    const now = page.url();
    return {
      text: now === before ? `Nothing to go back to; still on ${now}` : `Back on ${now}`,
      action: { pageUrl: now },
      replay: [{ tool: "back", input: {} }],
    };
  },
});
