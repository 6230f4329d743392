import { z } from "zod";
import screenshot from "../../agent/tools/screenshot.js";
import { fromOutput } from "../results.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({});

export default {
  name: "screenshot",
  title: "Take a screenshot",
  description:
    "See the visible part of the page as an image: what the outline cannot show (layout, pictures, a canvas). Fields holding a variable's value are painted over.",
  inputSchema,
  needsModel: false,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle(_input, call) {
    const output = await call.agentTool(screenshot, {});
    // The agent's words speak of points to click, which no tool here takes.
    return fromOutput({ ...output, text: `Screenshot of ${output.action?.pageUrl ?? "the page"}` });
  },
} satisfies McpTool<typeof inputSchema>;
