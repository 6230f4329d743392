import { z } from "zod";
import { fillVariables } from "../../variables.js";
import { clickAt } from "../pointer.js";
import { afterAction, markTyped, screenNow, showPoint, typeAtFocus } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "fillFormAt",
  pixels: true,
  description:
    "Fill several fields by where they are on the latest screenshot: each is clicked, cleared and typed into.",
  inputSchema: z.object({
    fields: z
      .array(
        z.object({
          x: z.number().min(0).describe("The field's horizontal position, in screenshot pixels"),
          y: z.number().min(0).describe("The field's vertical position, in screenshot pixels"),
          value: z
            .string()
            .describe("The text to put in it; a %name% token for a variable's value"),
        }),
      )
      .min(1)
      .max(30)
      .describe("The fields to fill, each by its position on the latest screenshot"),
  }),
  async execute({ fields }, run, deadline) {
    const page = run.page().playwrightPage;
    const screen = await screenNow(run);
    // Every token is checked before anything is typed.
    const values = fields.map((f) => fillVariables(f.value, run.variables));
    for (const f of fields) markTyped(run, f.value);
    for (const [i, f] of fields.entries()) {
      if (deadline.signal.aborted) break;
      await showPoint(run, screen, f);
      await clickAt(page, screen, f);
      await typeAtFocus(run, page, f.value, values[i]!, true);
    }
    return afterAction(run, deadline, `Filled ${fields.length} field(s)`, {
      fields: fields.map((f) => ({ x: f.x, y: f.y, value: f.value })),
    });
  },
});
