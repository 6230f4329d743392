import { z } from "zod";
import { pageAfter } from "../../agent/pageOutline.js";
import goto from "../../agent/tools/goto.js";
import { textAnswer } from "../results.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  url: z.string().min(1).describe("An absolute http(s) URL"),
});

export default {
  name: "open",
  title: "Open a URL",
  description:
    "Open a URL in the current tab; answers with the page's outline (its elements with [id]s to act on).",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  async handle({ url }, call) {
    // The host's address rule first (the service's): the browser is not even asked.
    await call.checkUrl(url);
    const output = await call.onRun(async (run, deadline) => {
      const opened = await goto.execute({ url }, run, deadline);
      const { url: _, ...after } = await pageAfter(run, deadline, opened.text);
      return after;
    });
    return textAnswer(output.text);
  },
} satisfies McpTool<typeof inputSchema>;
