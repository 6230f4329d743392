import { z } from "zod";
import { clickAt } from "../pointer.js";
import { afterAction, onPage, PointSchema, screenNow, showPoint } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "doubleClickAt",
  pixels: true,
  description: "Double-click at a point of the latest screenshot.",
  inputSchema: z.object(PointSchema),
  async execute({ x, y }, run, deadline) {
    const screen = await screenNow(run);
    await showPoint(run, screen, { x, y });
    const page = run.page().playwrightPage;
    await onPage(page, deadline, () => clickAt(page, screen, { x, y }, { clickCount: 2 }));
    return afterAction(run, deadline, `Double-clicked at (${x}, ${y})`, {
      action: `double click at ${x},${y}`,
    });
  },
});
