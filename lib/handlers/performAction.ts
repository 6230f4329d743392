/**
 * Performs one Action on the page, with no model call. `%name%` tokens in its arguments are
 * replaced by the variables' values here, at the last moment: the values never reach a model,
 * a log or the history; and typed only into a document of an origin the value belongs to.
 */
import type { ElementHandle } from "playwright-core";
import type { ElementGuard } from "../browser/deepLocator.js";
import type { Page } from "../browser/page.js";
import { elementOrigin } from "../browser/typingOrigin.js";
import { ServiceError } from "../errors.js";
import type { Action, Variables } from "../options.js";
import type { Deadline } from "../timeout.js";
import { checkTypedWhere, fillVariables, originOf, variablesIn } from "../variables.js";

export interface PerformCheck {
  /** Told of the element once resolved, before it is touched (the action cache's check). */
  guard?: ElementGuard;
  /** The origin the run started on (default: the page's now): where variables may be typed. */
  startOrigin?: string;
  /** The element was just seen there: fail at once when nothing matches (no waiting). */
  present?: boolean;
}

export async function performAction(
  page: Page,
  action: Action,
  variables: Variables | undefined,
  deadline: Deadline,
  check: PerformCheck = {},
): Promise<void> {
  const { guard, startOrigin = originOf(page.url()) } = check;
  const given = action.arguments ?? [];
  const args = given.map((a) => fillVariables(a, variables));
  const typed = given.join(" ");
  const carriesVariable = Object.keys(variablesIn(typed, variables)).length > 0;
  const checked = !carriesVariable
    ? guard
    : async (element: ElementHandle) => {
        checkTypedWhere(typed, variables, startOrigin, await elementOrigin(element));
        await guard?.(element);
      };
  const target = page.deepLocator(action.selector, checked, check.present);
  const timeout = deadline.remaining();
  const first = args[0] ?? "";
  switch (action.method ?? "click") {
    case "click":
      return target.click({ timeout });
    case "doubleClick":
      return target.click({ timeout, clickCount: 2 });
    case "hover":
      return target.hover({ timeout });
    // A variable's value goes into the element itself, checked at each insertion, never as
    // keys a page could redirect (lib/browser/guardedInput.ts).
    case "fill":
      return carriesVariable
        ? target.putVariable(first, { replace: true, shownAs: given[0] ?? "" }, { timeout })
        : target.fill(first, { timeout });
    case "type":
      return carriesVariable
        ? target.putVariable(first, { replace: false, shownAs: given[0] ?? "" }, { timeout })
        : target.type(first, { timeout });
    case "press":
      return target.press(first || "Enter", { timeout });
    case "scrollTo":
      return target.scrollTo(percentage(first), { timeout });
    case "nextChunk":
      return target.scrollByScreens(1, { timeout });
    case "prevChunk":
      return target.scrollByScreens(-1, { timeout });
    case "selectOptionFromDropdown":
      return selectOption(page, target, first, timeout);
    case "dragAndDrop":
      return dragAndDrop(page, action.selector, first, timeout);
    default:
      throw new ServiceError(`act: the method "${String(action.method)}" is not one act performs.`);
  }
}

/** "50%", "50" or "0.5" → 0.5. */
function percentage(text: string): number {
  const n = Number.parseFloat(text);
  if (!Number.isFinite(n))
    throw new ServiceError(`act: scrollTo needs a percentage, got "${text}".`);
  const fraction = text.includes("%") || n > 1 ? n / 100 : n;
  return Math.min(1, Math.max(0, fraction));
}

/** A native select picks the option by its text; a custom one is opened, then its option clicked. */
async function selectOption(
  page: Page,
  target: ReturnType<Page["deepLocator"]>,
  option: string,
  timeout: number,
): Promise<void> {
  if ((await target.tagName({ timeout })) === "select") {
    await target.selectOption(option, { timeout });
    return;
  }
  await target.click({ timeout });
  await page.playwrightPage
    .getByRole("option", { name: option, exact: true })
    .first()
    .click({ timeout });
}

async function dragAndDrop(page: Page, from: string, to: string, timeout: number): Promise<void> {
  if (!to) throw new ServiceError("act: dragAndDrop needs the target's selector as its argument.");
  const source = await page.deepLocator(from).boundingBox({ timeout });
  const target = await page.deepLocator(to).boundingBox({ timeout });
  if (!source || !target) throw new ServiceError("act: dragAndDrop: an element is not visible.");
  const mouse = page.playwrightPage.mouse;
  await mouse.move(source.x + source.width / 2, source.y + source.height / 2);
  await mouse.down();
  await mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 8 });
  await mouse.up();
}
