import { z } from "zod";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "screenshot",
  description:
    "Look at the visible part of the page as an image: for what the outline cannot show (layout, images, canvas, colours).",
  inputSchema: z.object({}),
  async execute(_input, run, deadline) {
    const page = run.page().playwrightPage;
    const image = await page.screenshot({ type: "png", timeout: deadline.remaining() });
    return {
      text: `Screenshot of ${page.url()}`,
      image,
      action: { pageUrl: page.url() },
      perishable: true,
    };
  },
});
