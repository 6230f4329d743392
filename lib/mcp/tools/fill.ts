import { z } from "zod";
import { actById, ElementId } from "./byId.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  id: ElementId,
  value: z
    .string()
    .describe(
      'The text to put in the field, replacing what it holds ("" clears it); %name% for a variable of the server',
    ),
});

export default {
  name: "fill",
  title: "Fill a field",
  description:
    "Replace the text of the field with this [id]; answers with the outline after it. A variable's %name% is typed as its value, only on the origins it belongs to.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  handle: ({ id, value }, call) => actById(call, id, "fill", value),
} satisfies McpTool<typeof inputSchema>;
