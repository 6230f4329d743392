/**
 * act(instruction | Action, options): an instruction is observed (one model call, filed under
 * act) and its best element acted on; an Action is acted on directly, with no model call. With
 * `selfHeal`, an action that fails (the page changed under it) is looked for again in a fresh
 * outline, by its description, and tried once more.
 */
import type { ElementHandle } from "playwright-core";
import type { ActRequest, ActResult, ElementIdentity } from "../api/operations.js";
import type { Context } from "../browser/context.js";
import type { ElementGuard } from "../browser/deepLocator.js";
import { identityOfElement, sameIdentity } from "../browser/elementIdentity.js";
import type { Page } from "../browser/page.js";
import { InvalidSelectorError, ServiceValidationError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Action, Variables } from "../options.js";
import { rawDetail, readableMessage } from "../readableError.js";
import type { Deadline } from "../timeout.js";
import {
  hideIdentity,
  hideVariables,
  originOf,
  VariableOriginRefused,
  variablesIn,
} from "../variables.js";
import { findElements, type ObserveSettings } from "./observe.js";
import { snapshotFor } from "./pageSnapshot.js";
import { performAction } from "./performAction.js";

export interface ActSettings extends ObserveSettings {
  selfHeal: boolean;
  /** Told of each element just before it is acted on (the agent's cursor points there). */
  onTarget?: (page: Page, action: Action) => Promise<void>;
  /** Told of the variables an action is about to type: their values are hidden from then on. */
  onVariablesUsed?: (variables: Variables) => void;
}

/** act's options as they arrive, parsed (the page is the one the call is about). */
export type ActCallOptions = NonNullable<ActRequest["options"]>;

/**
 * What a caller adds: the action cache's part (identify the elements acted on, or act only on
 * the one expected), and a run's start, where its variables may be typed.
 */
export interface ActCheck {
  identify?: boolean;
  expect?: ElementIdentity;
  /** The origin the run started on; an act call on its own starts on its page's. */
  startOrigin?: string;
  /** The element was just read there (the agent's id): nothing matching fails at once. */
  present?: boolean;
}

export async function act(
  context: Context,
  page: Page,
  given: string | Action,
  options: ActCallOptions,
  settings: ActSettings,
  deadline: Deadline,
  check: ActCheck = {},
): Promise<ActResult> {
  return hidingVariablesIn(options, async () => {
    // Watched before acting, so that a tab the action opens is the active page when act
    // returns; the watcher's first start (a browser-wide session) overlaps the choosing.
    const watching = context.newTabs();
    const startOrigin = check.startOrigin ?? originOf(page.url());
    const action =
      typeof given === "string" ? await choose(given, page, options, settings, deadline) : given;
    if (!action) {
      return failed(`No element matches "${given}"; nothing was done.`, String(given), []);
    }
    const tabs = await watching;
    const outcome = await attempt(action, page, options, settings, deadline, {
      ...check,
      startOrigin,
    });
    await tabs.settled(Math.min(NEW_TAB_WAIT_MS, deadline.remaining()));
    return outcome;
  });
}

/** The methods that put a value into the page. */
const TYPING_METHODS = new Set(["fill", "type", "press", "selectOptionFromDropdown"]);

/** The longest act waits for a tab its action opened to arrive. */
const NEW_TAB_WAIT_MS = 2_000;

async function choose(
  instruction: string,
  page: Page,
  options: ActCallOptions,
  settings: ActSettings,
  deadline: Deadline,
): Promise<Action | undefined> {
  const snapshot = await snapshotFor(page, {}, settings, deadline);
  const found = await findElements(
    `The one element to act on, and how, to: ${instruction}`,
    snapshot,
    options,
    settings,
    deadline,
    "act",
  );
  return found[0];
}

async function attempt(
  action: Action,
  page: Page,
  options: ActCallOptions,
  settings: ActSettings,
  deadline: Deadline,
  check: ActCheck,
): Promise<ActResult> {
  const identities: (ElementIdentity | null)[] = [];
  const identified = (result: ActResult): ActResult =>
    check.identify || check.expect ? { ...result, identities } : result;
  // Read from the element the action is about to touch, in the same resolution: taken before
  // acting, because after a click the element may be gone with its page.
  const guardFor = (slot: number): ElementGuard | undefined => {
    if (!check.identify && !check.expect) return undefined;
    // A value typed from a variable shows as its %name%, recorded and compared alike: an entry
    // never holds it, and runs with other values match the same entry.
    const identity = async (read: ElementIdentity) => {
      const seen = hideIdentity(read, options.variables);
      identities[slot] = seen;
      if (check.expect && !sameIdentity(seen, check.expect)) throw new NotTheRecordedElement(seen);
    };
    // Read on the handle, or (a click on an outline XPath) in the page with no handle.
    return Object.assign(
      async (element: ElementHandle) => identity(await identityOfElement(element)),
      { identity },
    );
  };
  try {
    deadline.step(`${action.method ?? "click"} ${action.selector}`);
    await settings.onTarget?.(page, action);
    settings.onVariablesUsed?.(usedBy(action, options.variables));
    await performAction(page, action, options.variables, deadlineShare(deadline), {
      guard: guardFor(0),
      startOrigin: check.startOrigin,
      present: check.present,
    });
    return identified(done(action, [action]));
  } catch (error) {
    // A missing variable or a selector no page can match is the caller's to fix, not a page
    // that changed.
    if (error instanceof ServiceValidationError || error instanceof InvalidSelectorError) {
      throw error;
    }
    // A value refused where it does not belong is not healed onto another element.
    if (error instanceof VariableOriginRefused) {
      return identified(failure(error, action, options, settings.logger));
    }
    // A replay acts on the recorded element or not at all: the cache heals, not this. The
    // recorded element that took the action and failed is no mismatch: acting again through a
    // heal could repeat keys already typed.
    if (check.expect) {
      const checked = identities[0] && !notTheRecorded(error);
      if (checked) return identified(failure(error, action, options, settings.logger));
      return mismatchResult(action, check.expect, error, identities);
    }
    // Typing or pressing again would repeat keys already sent: those are not healed.
    const repeatable = action.method !== "type" && action.method !== "press";
    if (!settings.selfHeal || !repeatable || deadline.signal.aborted) {
      return identified(failure(error, action, options, settings.logger));
    }
    // The page changed under the action: find the element again by what it was.
    deadline.step("self-heal");
    settings.logger.info("act", "the action failed; looking for its element again", {
      description: action.description,
    });
    let again: Action | undefined;
    try {
      again = await choose(action.description, page, options, settings, deadline);
    } catch (modelError) {
      // No model (an Action needs none) or a model failure: the first failure is the answer.
      if (deadline.signal.aborted) throw modelError;
      return identified(failure(error, action, options, settings.logger));
    }
    if (!again) return identified(failure(error, action, options, settings.logger));
    const healed: Action = { ...again, method: action.method, arguments: action.arguments };
    try {
      await settings.onTarget?.(page, healed);
      await performAction(page, healed, options.variables, deadline, {
        guard: guardFor(1),
        startOrigin: check.startOrigin,
      });
      return identified(done(healed, [action, healed]));
    } catch (second) {
      return identified(failure(second, healed, options, settings.logger, [action, healed]));
    }
  }
}

/** Runs `work`; an error it throws (its causes too) leaves without the variables' values. */
async function hidingVariablesIn<T>(options: ActCallOptions, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
      e.message = hideVariables(e.message, options.variables);
      if (e.stack) e.stack = hideVariables(e.stack, options.variables);
    }
    throw error;
  }
}

/** The first try gets half the time left, so that a self-heal still has time. */
function deadlineShare(deadline: Deadline): Deadline {
  const share = Math.max(1, Math.floor(deadline.remaining() / 2));
  const endsAt = Date.now() + share;
  return { ...deadline, remaining: () => Math.max(1, endsAt - Date.now()) };
}

function done(action: Action, actions: Action[]): ActResult {
  return {
    success: true,
    message: `${action.method ?? "click"} on ${action.description}`,
    actionDescription: action.description,
    actions,
  };
}

/**
 * A failed action, reported in one readable line without the variables' values (Playwright's
 * errors echo them). Playwright's whole text, call log included, goes to a debug line.
 */
function failure(
  error: unknown,
  action: Action,
  options: ActCallOptions,
  logger: Logger,
  actions: Action[] = [action],
): ActResult {
  if (error instanceof ServiceValidationError) throw error;
  logger.debug("act", `${action.method ?? "click"} on ${action.description} failed`, {
    detail: hideVariables(rawDetail(error), options.variables),
  });
  const message = hideVariables(readableMessage(error), options.variables);
  return failed(message, action.description, actions);
}

function failed(message: string, actionDescription: string, actions: Action[]): ActResult {
  return { success: false, message, actionDescription, actions };
}

/** The variables whose `%name%` the arguments of a typing action carry. */
function usedBy(action: Action, variables: Variables | undefined): Variables {
  if (!TYPING_METHODS.has(action.method ?? "click")) return {};
  return Object.assign({}, ...(action.arguments ?? []).map((a) => variablesIn(a, variables)));
}

function describe(identity: ElementIdentity): string {
  return `${identity.role} "${identity.name}"${identity.context ? ` in "${identity.context.slice(0, 60)}"` : ""}`;
}

/** Thrown by the replay's guard: the element found is not the one recorded. */
class NotTheRecordedElement extends Error {
  constructor(readonly seen: ElementIdentity) {
    super("the element is not the one recorded");
  }
}

function notTheRecorded(error: unknown): NotTheRecordedElement | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof NotTheRecordedElement) return e;
  }
  return undefined;
}

/** A replay that did not act: another element stands there, or none came in time. */
function mismatchResult(
  action: Action,
  expected: ElementIdentity,
  error: unknown,
  identities: (ElementIdentity | null)[],
): ActResult {
  const seen = notTheRecorded(error)?.seen;
  const message = seen
    ? `The element is not the one recorded (${describe(expected)}; now ${describe(seen)}); nothing was done.`
    : `The element recorded (${describe(expected)}) did not come in time; nothing was done.`;
  return { ...failed(message, action.description, [action]), identities, mismatch: true };
}
