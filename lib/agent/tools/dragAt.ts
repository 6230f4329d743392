import { z } from "zod";
import { dragAlong } from "../pointer.js";
import { afterAction, PointSchema, screenNow, showPoint } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

const Point = z.object(PointSchema);

export default defineTool({
  name: "dragAt",
  pixels: true,
  description:
    "Press at one point of the latest screenshot, move to another (through optional points between) and release: drag a slider, move a piece, draw.",
  inputSchema: z.object({
    path: z
      .array(Point)
      .min(2)
      .max(50)
      .describe(
        "Points in pixels of the latest screenshot: where to press, [points on the way], where to release",
      ),
  }),
  async execute({ path }, run, deadline) {
    const screen = await screenNow(run);
    await showPoint(run, screen, path[0]!);
    await dragAlong(run.page().playwrightPage, screen, path);
    const from = path[0]!;
    const to = path[path.length - 1]!;
    return afterAction(run, deadline, `Dragged from (${from.x}, ${from.y}) to (${to.x}, ${to.y})`, {
      action: `drag ${from.x},${from.y} → ${to.x},${to.y}`,
    });
  },
});
