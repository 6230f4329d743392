import { z } from "zod";
import { openUrl } from "../openUrl.js";
import { pinStart } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "goto",
  description: "Open a URL in this tab.",
  unreplayableOnError: true,
  inputSchema: z.object({
    url: z.string().min(1).describe("An absolute http(s) URL"),
  }),
  async execute({ url }, run, deadline) {
    const page = run.page();
    const response = await openUrl(page.playwrightPage, url, run.navigation, deadline);
    pinStart(run);
    const status = response ? ` (HTTP ${response.status()})` : "";
    return {
      text: `Opened ${page.url()}${status}`,
      action: { pageUrl: page.url() },
      replay: [{ tool: "goto", input: { url } }],
    };
  },
});
