import { z } from "zod";
import fillForm from "../../agent/tools/fillForm.js";
import { fromOutput } from "../results.js";
import { ElementId } from "./byId.js";
import type { McpTool } from "./index.js";

const Field = z
  .object({
    id: ElementId.optional(),
    field: z
      .string()
      .min(1)
      .optional()
      .describe("Without id: the field's name in words, \"Email\" (needs the server's model)"),
    value: z.string().describe("The text to put in it; %name% for a variable of the server"),
  })
  .refine((f) => f.id !== undefined || f.field !== undefined, {
    error: "give the field's id, or its name",
  });

const inputSchema = z.object({
  fields: z.array(Field).min(1).max(30).describe("The fields, in page order"),
});

export default {
  name: "fill_form",
  title: "Fill a form",
  description:
    "Fill several text fields at once, each by its [id]; answers with each field's outcome and the outline after. Submitting is a separate click or press.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  async handle({ fields }, call) {
    return fromOutput(await call.agentTool(fillForm, { fields }));
  },
} satisfies McpTool<typeof inputSchema>;
