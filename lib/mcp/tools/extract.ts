import { z } from "zod";
import { JsonSchemaSchema } from "../../api/operations.js";
import { activePageOf } from "../../handlers/pageSnapshot.js";
import type { ToolAnswer } from "../results.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  instruction: z
    .string()
    .trim()
    .min(1)
    .describe('What to take from the page, in words: "the price and name of each tea"'),
  schema: JsonSchemaSchema.optional().describe(
    "The shape of the data, as a JSON Schema object; without one the answer is text",
  ),
});

export default {
  name: "extract",
  title: "Extract data",
  description:
    "Take data from the page with the server's model, in the shape of a JSON Schema when one is given: answers with it as JSON.",
  inputSchema,
  needsModel: true,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle({ instruction, schema }, call) {
    const { context, operations } = call.browser;
    // Under the tool's time like every call on the run; the data comes out beside its text.
    let data: unknown;
    await call.onRun(async (_run, deadline) => {
      const page = activePageOf(context);
      data = await operations.extract(
        {
          instruction,
          schema,
          options: { timeout: deadline.remaining() },
          frameId: await page.frameId(),
        },
        { signal: deadline.signal },
      );
      return { text: "" };
    });
    return answerFor(data);
  },
} satisfies McpTool<typeof inputSchema>;

/** Text without a schema; JSON with one, and as structured content when it is an object. */
function answerFor(data: unknown): ToolAnswer {
  const extraction = (data as { extraction?: unknown } | undefined)?.extraction;
  const isObject = typeof data === "object" && data !== null && !Array.isArray(data);
  const text =
    typeof extraction === "string" && isObject && Object.keys(data).length === 1
      ? extraction
      : JSON.stringify(data);
  return {
    content: [{ type: "text", text }],
    ...(isObject ? { structuredContent: data as Record<string, unknown> } : {}),
  };
}
