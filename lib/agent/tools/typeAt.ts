import { z } from "zod";
import { fillVariables } from "../../variables.js";
import { clickAt } from "../pointer.js";
import {
  afterAction,
  markTyped,
  PointSchema,
  screenNow,
  showPoint,
  typeAtFocus,
} from "./coordinates.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "typeAt",
  pixels: true,
  description:
    "Click at a point of the latest screenshot, then type text there (a field drawn on a canvas, a custom editor).",
  inputSchema: z.object({
    ...PointSchema,
    text: z.string().describe("The text to type; a %name% token for a variable's value"),
    pressEnter: z.boolean().default(false).describe("Press Enter after typing"),
  }),
  async execute({ x, y, text, pressEnter }, run, deadline) {
    const page = run.page().playwrightPage;
    const value = fillVariables(text, run.variables);
    markTyped(run, text);
    const screen = await screenNow(run);
    await showPoint(run, screen, { x, y });
    await clickAt(page, screen, { x, y });
    await typeAtFocus(run, page, text, value, false);
    if (pressEnter) await page.keyboard.press("Enter");
    return afterAction(run, deadline, `Typed ${text} at (${x}, ${y})`, {
      action: `type at ${x},${y}`,
    });
  },
});
