import { z } from "zod";
import { clickAt } from "../pointer.js";
import { afterAction, onPage, PointSchema, screenNow, showPoint } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "clickAt",
  pixels: true,
  description:
    "Click at a point of the latest screenshot: for what the outline cannot reach (canvas, maps, custom widgets).",
  inputSchema: z.object({
    ...PointSchema,
    button: z.enum(["left", "right", "middle"]).default("left").describe("Mouse button"),
  }),
  async execute({ x, y, button }, run, deadline) {
    const screen = await screenNow(run);
    await showPoint(run, screen, { x, y });
    const page = run.page().playwrightPage;
    await onPage(page, deadline, () => clickAt(page, screen, { x, y }, { button }));
    return afterAction(run, deadline, `Clicked at (${x}, ${y})`, { action: `click at ${x},${y}` });
  },
});
