import { z } from "zod";
import { activePageOf } from "../../handlers/pageSnapshot.js";
import type { Action } from "../../options.js";
import { textAnswer } from "../results.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  instruction: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe(
      'What to look for, in words: "the search box"; without it, every element one can act on',
    ),
});

/** One line per element: what it is and what act would do with it. */
function lineOf(action: Action): string {
  const args = action.arguments?.length ? ` ${JSON.stringify(action.arguments)}` : "";
  return `- ${action.description}${action.method ? ` (${action.method}${args})` : ""}`;
}

export default {
  name: "observe",
  title: "Find elements, in words",
  description:
    "Find the elements the words describe with the server's model, most relevant first, each with the action it suits.",
  inputSchema,
  needsModel: true,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle({ instruction }, call) {
    const { context, operations } = call.browser;
    const output = await call.onRun(async (_run, deadline) => {
      const page = activePageOf(context);
      const found = await operations.observe(
        {
          instruction,
          options: { timeout: deadline.remaining() },
          frameId: await page.frameId(),
        },
        { signal: deadline.signal },
      );
      return {
        text: found.length ? found.map(lineOf).join("\n") : "Nothing on the page matches.",
      };
    });
    return textAnswer(output.text);
  },
} satisfies McpTool<typeof inputSchema>;
