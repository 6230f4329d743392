import { z } from "zod";
import { readPage, UNCHANGED_OUTLINE } from "../../agent/pageOutline.js";
import { textAnswer } from "../results.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  fresh: z
    .boolean()
    .default(false)
    .describe(
      "The whole outline even if it has not changed since the last read (a new conversation has not seen it)",
    ),
  part: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .optional()
    .describe(
      "Of an outline too long for one answer, this part (1 = the top); default the part in view",
    ),
});

/** The session outlives a conversation: a model that never saw the outline is told the way out. */
const UNCHANGED = `${UNCHANGED_OUTLINE} If you do not have it, read again with fresh: true.`;

export default {
  name: "read",
  title: "Read the page",
  description:
    "Read the page: its URL, then one line per element or text, indented by nesting, with [id] on what can be acted on. An outline you already have is answered in one line.",
  inputSchema,
  needsModel: false,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle({ fresh, part }, call) {
    if (fresh) call.forgetOutline();
    const output = await call.onRun(async (run, deadline) => {
      const read = await readPage(run, deadline, { part });
      return { text: read.unchanged ? UNCHANGED : read.text };
    });
    return textAnswer(output.text);
  },
} satisfies McpTool<typeof inputSchema>;
