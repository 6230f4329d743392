/**
 * Values painted over for a picture: every input, text area and editable region whose text holds
 * one of them, in every frame and open shadow root, by inline !important styles (the element's
 * own style kept aside and put back). The value stays in the page; only the picture hides it.
 * The agent's screenshots and a failed job's last picture use it.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import { awaitAtMost, sleep } from "../timeout.js";

const MASK_ATTRIBUTE = "data-wayfarer-mask";

/** Paints over what holds one of `values` (two characters or more); answers the undo. */
export async function maskValues(
  page: PlaywrightPage,
  values: readonly string[],
): Promise<() => Promise<void>> {
  const wanted = values.filter((v) => v.length >= 2);
  if (!wanted.length) return async () => {};
  // Bounded: a page that stopped answering must not hold a failed run's last picture back.
  const marked = await Promise.race([mark(page, wanted), sleep(MARK_WAIT_MS).then(() => true)]);
  return marked ? () => awaitAtMost(unmark(page), MARK_WAIT_MS).then(() => {}) : async () => {};
}

const MARK_WAIT_MS = 1_000;

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
