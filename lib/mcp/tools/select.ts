import { z } from "zod";
import { actById, ElementId } from "./byId.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  id: ElementId,
  option: z.string().min(1).describe("The option's text, as the outline shows it"),
});

export default {
  name: "select",
  title: "Choose an option",
  description:
    "Choose an option of the dropdown with this [id] (a native select, or a custom one that opens a list); answers with the outline after it.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  handle: ({ id, option }, call) => actById(call, id, "selectOptionFromDropdown", option),
} satisfies McpTool<typeof inputSchema>;
