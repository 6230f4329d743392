import { z } from "zod";
import { withReserve } from "../openUrl.js";
import { holdAt } from "../pointer.js";
import { afterAction, PointSchema, screenNow, showPoint } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "holdAt",
  pixels: true,
  description: "Press and hold the mouse at a point of the latest screenshot (a long press).",
  inputSchema: z.object({
    ...PointSchema,
    seconds: z.number().positive().max(10).default(1).describe("How long to hold, in seconds"),
  }),
  async execute({ x, y, seconds }, run, deadline) {
    // Kept short of the deadline: the screenshot after it needs a moment too.
    const ms = Math.min(seconds * 1000, withReserve(deadline));
    const screen = await screenNow(run);
    await showPoint(run, screen, { x, y });
    await holdAt(run.page().playwrightPage, screen, { x, y }, ms, deadline.signal);
    return afterAction(run, deadline, `Held at (${x}, ${y}) for ${Math.round(ms)} ms`, {
      action: `hold at ${x},${y}`,
    });
  },
});
