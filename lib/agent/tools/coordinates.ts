/**
 * What the coordinate tools share: a point's schema (in the pixels of the latest screenshot),
 * the screen of the page now, and the fresh screenshot each returns after acting, so that the
 * model sees what its action did.
 */
import { z } from "zod";
import { captureMasked } from "../maskedCapture.js";
import { type Screen, screenFor } from "../screen.js";
import type { AgentRun, ToolOutput } from "./defineTool.js";

export const PointSchema = {
  x: z.number().min(0).describe("Horizontal position, in pixels of the latest screenshot"),
  y: z.number().min(0).describe("Vertical position, in pixels of the latest screenshot"),
};

/** The variables `text` names are about to be typed: hidden from now on. */
export function markTyped(run: AgentRun, text: string): void {
  for (const [, name] of text.matchAll(/%(\w+)%/g)) {
    const value = name ? run.variables?.[name] : undefined;
    if (name && value !== undefined) run.handlers.onVariablesUsed?.({ [name]: value });
  }
}

/** The screen points are named in: the latest screenshot's, else the page's now. */
export async function screenNow(run: AgentRun): Promise<Screen> {
  return run.screen ?? screenFor(run.page().playwrightPage);
}

export async function afterAction(
  run: AgentRun,
  done: string,
  action: Record<string, unknown>,
): Promise<ToolOutput> {
  await run.newTabs.settled();
  const page = run.page().playwrightPage;
  const { image, screen } = await captureMasked(page, run.variables);
  run.screen = screen;
  return {
    text: `${done}. Screenshot after it (${screen.width}×${screen.height}) follows; the page is ${page.url()}`,
    image,
    action: { ...action, pageUrl: page.url() },
    perishable: true,
  };
}
