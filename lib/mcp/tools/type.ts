import { z } from "zod";
import { actById, ElementId } from "./byId.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  id: ElementId,
  text: z
    .string()
    .min(1)
    .describe("The text, typed key by key after what the field holds; %name% for a variable"),
});

export default {
  name: "type",
  title: "Type into an element",
  description:
    "Type text key by key into the element with this [id] (for fields that react to each key, such as suggestions); answers with the outline after it.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  handle: ({ id, text }, call) => actById(call, id, "type", text),
} satisfies McpTool<typeof inputSchema>;
