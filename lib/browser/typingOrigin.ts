/**
 * Where keys would land, as an origin: the document of an element, or of the focus. Read from
 * the browser's own record of each frame's URL (Playwright's), never from what a page says of
 * itself, so a page cannot pass for another site to receive a variable's value.
 */
import type { ElementHandle, Frame, JSHandle, Page } from "playwright-core";
import { originOf } from "../variables.js";

/** The origin of a frame's document: about:blank and srcdoc frames have their parent's. */
export function frameOrigin(frame: Frame): string {
  for (let f: Frame | null = frame; f; f = f.parentFrame()) {
    const url = f.url();
    if (url === "about:blank" || url === "about:srcdoc" || url === "") continue;
    return originOf(url);
  }
  return "null";
}

/** The origin of the document holding `element`. */
export async function elementOrigin(element: ElementHandle): Promise<string> {
  const frame = await element.ownerFrame();
  return frame ? frameOrigin(frame) : "null";
}

/** Frames deeper than this are not followed (the keys go to the last one found). */
const MAX_FRAME_DEPTH = 16;

/**
 * The origins of the frames from the top document down to the one holding the focus: where
 * typed keys go. Each frame names its focused child frame itself, so every one on the way
 * counts: a frame that lies about its focus is on the list it is checked against.
 */
export async function focusOrigins(page: Page): Promise<string[]> {
  const { origins, element } = await focusTarget(page);
  await element?.dispose();
  return origins;
}

/**
 * Where the focus is: the origins of the frames down to it (as focusOrigins) and the focused
 * element of the last one (inside its shadow roots), or null when none holds it.
 */
export async function focusTarget(
  page: Page,
): Promise<{ origins: string[]; element: ElementHandle | null }> {
  const origins: string[] = [];
  let frame: Frame | null = page.mainFrame();
  for (let depth = 0; frame && depth < MAX_FRAME_DEPTH; depth++) {
    origins.push(frameOrigin(frame));
    const handle: JSHandle = await frame.evaluateHandle(() => {
      let focused = document.activeElement;
      while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
      return focused === document.body ? null : focused;
    });
    const element = handle.asElement();
    const child = element ? await element.contentFrame() : null;
    if (!child) return { origins, element };
    await handle.dispose();
    frame = child;
  }
  return { origins, element: null };
}
