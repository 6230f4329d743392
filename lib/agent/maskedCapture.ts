/**
 * The screenshot a model is shown: the viewport at the screen's size (screen.ts), with every
 * input, text area and editable region holding a variable's value painted over, in every frame
 * and open shadow root. The value stays in the page; only the picture hides it.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import { maskValues } from "../browser/valueMask.js";
import type { Variables } from "../options.js";
import { captureScreen, type Screen } from "./screen.js";

export async function captureMasked(
  page: PlaywrightPage,
  variables: Variables | undefined,
): Promise<{ image: Buffer; screen: Screen }> {
  const values = Object.values(variables ?? {}).map((v) =>
    String(typeof v === "object" ? v.value : v),
  );
  const unmask = await maskValues(page, values);
  try {
    return await captureScreen(page);
  } finally {
    await unmask();
  }
}
