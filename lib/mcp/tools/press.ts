import { z } from "zod";
import { pageAfter } from "../../agent/pageOutline.js";
import keys from "../../agent/tools/keys.js";
import { textAnswer } from "../results.js";
import { actById, ElementId } from "./byId.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  key: z
    .string()
    .min(1)
    .describe('A key or chord, as Playwright names them: "Enter", "Escape", "Tab", "Control+A"'),
  id: ElementId.optional().describe(
    "The element to press it on (its [id]); without one the key goes to what has the focus",
  ),
});

export default {
  name: "press",
  title: "Press a key",
  description:
    "Press a key on the element with this [id], or on what has the focus; answers with the outline after it.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  async handle({ key, id }, call) {
    if (id !== undefined) return actById(call, id, "press", key);
    const output = await call.onRun(async (run, deadline) => {
      const pressed = await keys.execute({ keys: [key] }, run, deadline);
      const { url: _, ...after } = await pageAfter(run, deadline, `${pressed.text}.`);
      return after;
    });
    return textAnswer(output.text);
  },
} satisfies McpTool<typeof inputSchema>;
