/**
 * The screenshot a model is shown: the viewport at the screen's size (screen.ts), with every
 * input and text area holding a variable's value painted over, in every frame. The value stays
 * in the page; only the picture hides it.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import type { Variables } from "../options.js";
import { captureScreen, type Screen } from "./screen.js";

const MASK_ATTRIBUTE = "data-wayfarer-mask";
/** Playwright's mask colour, kept so that a masked field looks the same either way. */
const MASK_CSS = `[${MASK_ATTRIBUTE}]{background:#ff00ff!important;color:#ff00ff!important;-webkit-text-fill-color:#ff00ff!important;caret-color:transparent!important;border-color:#ff00ff!important}`;

export async function captureMasked(
  page: PlaywrightPage,
  variables: Variables | undefined,
): Promise<{ image: Buffer; screen: Screen }> {
  const values = Object.values(variables ?? {})
    .map((v) => String(typeof v === "object" ? v.value : v))
    .filter((v) => v.length >= 2);
  const masked = values.length ? await mark(page, values) : false;
  try {
    return await captureScreen(page);
  } finally {
    if (masked) await unmark(page);
  }
}

async function mark(page: PlaywrightPage, values: string[]): Promise<boolean> {
  const counts = await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate(
          ({ values, attribute, css }) => {
            let n = 0;
            for (const el of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
              "input, textarea",
            )) {
              if (values.some((v) => el.value.includes(v))) {
                el.setAttribute(attribute, "");
                n++;
              }
            }
            if (n) {
              const style = document.createElement("style");
              style.setAttribute(attribute, "style");
              style.textContent = css;
              document.documentElement.appendChild(style);
            }
            return n;
          },
          { values, attribute: MASK_ATTRIBUTE, css: MASK_CSS },
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
          for (const el of document.querySelectorAll(`[${attribute}]`)) {
            if (el.getAttribute(attribute) === "style") el.remove();
            else el.removeAttribute(attribute);
          }
        }, MASK_ATTRIBUTE)
        .catch(() => {}),
    ),
  );
}
