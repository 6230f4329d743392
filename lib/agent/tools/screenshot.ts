import type { Page as PlaywrightPage } from "playwright-core";
import { z } from "zod";
import type { Variables } from "../../options.js";
import { defineTool } from "./defineTool.js";

const MASK_ATTRIBUTE = "data-wayfarer-mask";

export default defineTool({
  name: "screenshot",
  description:
    "Look at the visible part of the page as an image: for what the outline cannot show (layout, images, canvas, colours).",
  inputSchema: z.object({}),
  async execute(_input, run, deadline) {
    const page = run.page().playwrightPage;
    // Fields holding a variable's value are painted over: the model never sees a value.
    const masked = await markFieldsWithValues(page, valuesOf(run.variables));
    try {
      const image = await page.screenshot({
        type: "png",
        timeout: deadline.remaining(),
        mask: masked ? page.frames().map((f) => f.locator(`[${MASK_ATTRIBUTE}]`)) : undefined,
      });
      return {
        text: `Screenshot of ${page.url()}: the image follows.`,
        image,
        action: { pageUrl: page.url() },
        perishable: true,
      };
    } finally {
      if (masked) await unmark(page);
    }
  },
});

function valuesOf(variables: Variables | undefined): string[] {
  return Object.values(variables ?? {})
    .map((v) => String(typeof v === "object" ? v.value : v))
    .filter((v) => v.length >= 2);
}

/** Marks, in every frame, the inputs and text areas whose value contains one of `values`. */
async function markFieldsWithValues(page: PlaywrightPage, values: string[]): Promise<boolean> {
  if (!values.length) return false;
  const counts = await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate(
          ({ values, attribute }) => {
            let n = 0;
            for (const el of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
              "input, textarea",
            )) {
              if (values.some((v) => el.value.includes(v))) {
                el.setAttribute(attribute, "");
                n++;
              }
            }
            return n;
          },
          { values, attribute: MASK_ATTRIBUTE },
        )
        .catch(() => 0),
    ),
  );
  return counts.some((n) => n > 0);
}

async function unmark(page: PlaywrightPage): Promise<void> {
  await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate((attribute) => {
          for (const el of document.querySelectorAll(`[${attribute}]`))
            el.removeAttribute(attribute);
        }, MASK_ATTRIBUTE)
        .catch(() => {}),
    ),
  );
}
