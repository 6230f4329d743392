import { z } from "zod";
import { actById, ElementId } from "./byId.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({ id: ElementId });

export default {
  name: "click",
  title: "Click an element",
  description:
    "Click the element with this [id]; answers with what was done and the page's outline after it.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  handle: ({ id }, call) => actById(call, id, "click"),
} satisfies McpTool<typeof inputSchema>;
