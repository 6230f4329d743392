import { z } from "zod";
import { actById, ElementId } from "./byId.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({ id: ElementId });

export default {
  name: "hover",
  title: "Hover over an element",
  description:
    "Move the mouse over the element with this [id] (menus, tooltips); answers with the outline after it.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  handle: ({ id }, call) => actById(call, id, "hover"),
} satisfies McpTool<typeof inputSchema>;
