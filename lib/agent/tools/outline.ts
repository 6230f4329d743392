import { z } from "zod";
import { snapshotFor } from "../../handlers/pageSnapshot.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "outline",
  description:
    "Read the page as an outline: one line per element or text, indented by nesting, [id] on what can be acted on. Use it to see what is on the page before acting or to check the result of an action.",
  inputSchema: z.object({}),
  async execute(_input, run, deadline) {
    const page = run.page();
    const snapshot = await snapshotFor(page, {}, run.actSettings, deadline);
    // Over the token budget, the part in view; scrolling brings the rest.
    const part =
      snapshot.chunks.length > 1
        ? `(part ${snapshot.startChunk + 1} of ${snapshot.chunks.length}, the part in view; scroll for the rest)\n${snapshot.chunks[snapshot.startChunk]!.text}`
        : snapshot.text;
    return {
      text: `URL: ${page.url()}\n${part}`,
      action: { pageText: part, pageUrl: page.url() },
      perishable: true,
    };
  },
});
