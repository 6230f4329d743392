import { z } from "zod";
import { sleep } from "../../timeout.js";
import { scrollAt, scrollDelta } from "../pointer.js";
import { afterAction, PointSchema, screenNow, showPoint } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "scrollAt",
  pixels: true,
  description:
    "Scroll whatever is under a point of the latest screenshot (a list, a map, the page).",
  inputSchema: z.object({
    ...PointSchema,
    direction: z.enum(["up", "down", "left", "right"]).describe("Which way to scroll"),
    amount: z
      .number()
      .positive()
      .max(5_000)
      .default(400)
      .describe("How far, in pixels of the screenshot (400 by default)"),
  }),
  async execute({ x, y, direction, amount }, run, deadline) {
    const screen = await screenNow(run);
    // The amount is in screenshot pixels: scaled like a point.
    const css = (amount * screen.cssWidth) / screen.width;
    await showPoint(run, screen, { x, y });
    await scrollAt(run.page().playwrightPage, screen, { x, y }, scrollDelta(direction, css));
    // Wheel scrolling is applied asynchronously by the compositor.
    await sleep(100, deadline.signal);
    return afterAction(run, deadline, `Scrolled ${direction} at (${x}, ${y})`, {
      action: `scroll ${direction} ${amount} at ${x},${y}`,
    });
  },
});
