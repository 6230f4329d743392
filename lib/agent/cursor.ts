/**
 * highlightCursor: a dot on the page where the agent is about to act, so that a person
 * watching (or a recording) sees what it points at. It takes no clicks and no space.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import type { Page } from "../browser/page.js";
import type { Action } from "../options.js";

const CURSOR_ID = "__wayfarer_cursor";

export async function pointAt(page: Page, action: Action): Promise<void> {
  const box = await page
    .deepLocator(action.selector)
    .boundingBox({ timeout: 2_000 })
    .catch(() => null);
  if (box) await showCursorAt(page.playwrightPage, box.x + box.width / 2, box.y + box.height / 2);
}

/** Puts the dot at a point of the viewport (CSS pixels). */
export async function showCursorAt(page: PlaywrightPage, x: number, y: number): Promise<void> {
  await page
    .evaluate(
      ({ x, y, id }) => {
        let dot = document.getElementById(id);
        if (!dot) {
          dot = document.createElement("div");
          dot.id = id;
          dot.setAttribute("aria-hidden", "true");
          dot.style.cssText =
            "position:fixed;z-index:2147483647;pointer-events:none;width:18px;height:18px;margin:-9px 0 0 -9px;border-radius:50%;background:rgba(255,60,60,.55);border:2px solid #fff;box-shadow:0 0 0 1px rgba(0,0,0,.4);transition:left .15s,top .15s";
          document.documentElement.appendChild(dot);
        }
        dot.style.left = `${x}px`;
        dot.style.top = `${y}px`;
      },
      { x, y, id: CURSOR_ID },
    )
    .catch(() => {});
}

/** Where the cursor is on the page, or null when there is none (for tests and debugging). */
export function cursorPosition(page: Page): Promise<{ x: number; y: number } | null> {
  return page.playwrightPage.evaluate((id) => {
    const dot = document.getElementById(id);
    return dot
      ? { x: Number.parseFloat(dot.style.left), y: Number.parseFloat(dot.style.top) }
      : null;
  }, CURSOR_ID);
}

/** Takes the cursor off the page at the end of a run: later screenshots show the page alone. */
export async function removeCursor(page: Page | undefined): Promise<void> {
  await page?.playwrightPage
    .evaluate((id) => document.getElementById(id)?.remove(), CURSOR_ID)
    .catch(() => {});
}
