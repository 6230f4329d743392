/**
 * The screenshot a model is shown: the viewport at the screen's size (screen.ts), with every
 * input, text area and editable region holding a variable's value painted over, in every frame
 * and open shadow root. The value stays in the page; only the picture hides it.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import type { Variables } from "../options.js";
import { captureScreen, type Screen } from "./screen.js";

const MASK_ATTRIBUTE = "data-wayfarer-mask";

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

/**
 * Marks and paints over, in every frame and open shadow root, the inputs, text areas and
 * editable regions whose text holds one of `values` (inline !important styles, the element's
 * own style kept in the mark to be put back). Playwright's mask colour is used.
 */
async function mark(page: PlaywrightPage, values: string[]): Promise<boolean> {
  const counts = await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate(
          ({ values, attribute }) => {
            let n = 0;
            const paint = (el: HTMLElement) => {
              el.setAttribute(attribute, el.getAttribute("style") ?? "");
              for (const p of ["background", "color", "-webkit-text-fill-color", "border-color"]) {
                el.style.setProperty(p, "#ff00ff", "important");
              }
              el.style.setProperty("caret-color", "transparent", "important");
              n++;
            };
            const visit = (root: Document | ShadowRoot) => {
              for (const el of root.querySelectorAll<HTMLElement>("*")) {
                const text =
                  el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement
                    ? el.value
                    : el.isContentEditable && !el.parentElement?.isContentEditable
                      ? el.textContent
                      : null;
                if (text && values.some((v) => text.includes(v))) paint(el);
                if (el.shadowRoot) visit(el.shadowRoot);
              }
            };
            visit(document);
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
          const visit = (root: Document | ShadowRoot) => {
            for (const el of root.querySelectorAll<HTMLElement>("*")) {
              const kept = el.getAttribute(attribute);
              if (kept !== null) {
                if (kept) el.setAttribute("style", kept);
                else el.removeAttribute("style");
                el.removeAttribute(attribute);
              }
              if (el.shadowRoot) visit(el.shadowRoot);
            }
          };
          visit(document);
        }, MASK_ATTRIBUTE)
        .catch(() => {}),
    ),
  );
}
