import { z } from "zod";
import { readPage, UNCHANGED_OUTLINE } from "../pageOutline.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "outline",
  readOnly: true,
  description:
    "Read the page: one line per element or text, indented by nesting, [id] on what can be acted on.",
  inputSchema: z.object({}),
  async execute(_input, run, deadline) {
    const read = await readPage(run, deadline);
    const action = { pageText: read.part, pageUrl: read.url };
    // The model has this very outline in front of it: a line says so, and the ids still hold.
    if (read.unchanged) return { text: UNCHANGED_OUTLINE, action };
    return { text: read.text, action, perishable: true, sawChange: true };
  },
});
