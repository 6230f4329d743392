import { z } from "zod";
import { clickAt } from "../pointer.js";
import { afterAction, PointSchema, screenNow } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "clickAt",
  description:
    "Click at a point of the latest screenshot: for what the outline cannot reach (canvas, maps, custom widgets).",
  inputSchema: z.object({
    ...PointSchema,
    button: z.enum(["left", "right", "middle"]).default("left").describe("Mouse button"),
  }),
  async execute({ x, y, button }, run) {
    await clickAt(run.page().playwrightPage, await screenNow(run), { x, y }, { button });
    return afterAction(run, `Clicked at (${x}, ${y})`, { action: `click at ${x},${y}` });
  },
});
