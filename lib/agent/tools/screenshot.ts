import { z } from "zod";
import { captureMasked } from "../maskedCapture.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "screenshot",
  pixels: true,
  description:
    "See the visible page as an image: what the outline cannot show (layout, images, canvas).",
  inputSchema: z.object({}),
  async execute(_input, run) {
    const page = run.page().playwrightPage;
    // Fields holding a variable's value are painted over: the model never sees a value.
    const { image, screen } = await captureMasked(page, run.variables);
    run.screens.latest = screen;
    return {
      text: `Screenshot of ${page.url()} (${screen.width}×${screen.height} pixels; points you name are in these pixels): the image follows.`,
      image,
      action: { pageUrl: page.url() },
      perishable: true,
    };
  },
});
