import { z } from "zod";
import { sleep } from "../../timeout.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "scroll",
  description: "Scroll the page (or the scrollable area in the middle of the view).",
  unreplayableOnError: true,
  inputSchema: z.object({
    direction: z.enum(["up", "down"]),
    screens: z.number().positive().max(10).default(0.8).describe("Heights of the view"),
  }),
  async execute({ direction, screens }, run, deadline) {
    const pwPage = run.page().playwrightPage;
    const view = pwPage.viewportSize() ?? { width: 1280, height: 720 };
    // The wheel scrolls what a user would: the scrollable box under the middle of the view.
    await pwPage.mouse.move(view.width / 2, view.height / 2);
    const dy = Math.round(view.height * screens) * (direction === "down" ? 1 : -1);
    await pwPage.mouse.wheel(0, dy);
    // Wheel scrolling is applied asynchronously by the compositor.
    await sleep(Math.min(100, deadline.remaining()), deadline.signal);
    const where = await pwPage
      .evaluate(() => {
        const s = document.scrollingElement ?? document.documentElement;
        const range = s.scrollHeight - s.clientHeight;
        return range > 0 ? Math.round((s.scrollTop / range) * 100) : 100;
      })
      .catch(() => undefined);
    return {
      text: `Scrolled ${direction}${where === undefined ? "" : `; the page is at ${where}% of its height`}`,
      action: { action: `scroll ${direction} ${screens} screens`, pageUrl: pwPage.url() },
      replay: [{ tool: "scroll", input: { direction, screens } }],
    };
  },
});
