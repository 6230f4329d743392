/**
 * A lazy, immutable description of one element anywhere in the page: through same-origin and
 * out-of-process iframes, open and closed shadow roots. Nothing touches the page until an
 * action runs; the action requires exactly one match and waits for it until its deadline.
 */

import type { ElementHandle, Frame, Page } from "playwright-core";
import { z } from "zod";
import type { ElementIdentity } from "../api/operations.js";
import { InvalidSelectorError, ServiceError, XPathResolutionError } from "../errors.js";
import { parseInput, TimeoutSchema } from "../options.js";
import { readableError } from "../readableError.js";
import { DEFAULT_TIMEOUT_MS, type Deadline, sleep, withTimeout } from "../timeout.js";
import { noteAction } from "./actionNotes.js";
import {
  type Aim,
  aimClick,
  clickAimed,
  clickAtXPath,
  type DirectClickOptions,
  dropAim,
  OUT_OF_VIEW,
} from "./directClick.js";
import {
  AmbiguousSelectorError,
  disposeAll,
  type Resolution,
  resolveSelector,
} from "./elementResolver.js";
import { DetachedWhileTyping, putValue } from "./guardedInput.js";
import { inPage } from "./inPage.js";
import { type ParsedSelector, parseSelector } from "./selector.js";

const LocatorTimeout = TimeoutSchema.optional().describe(
  "The most the wait for the element and the action may take, in ms (default 30000).",
);
export const LocatorOptionsSchema = z.strictObject({ timeout: LocatorTimeout }).optional();
export const ClickOptionsSchema = z
  .strictObject({
    timeout: LocatorTimeout,
    button: z.enum(["left", "right", "middle"]).optional().describe('Default "left".'),
    clickCount: z.number().int().positive().optional().describe("2 for a double click."),
  })
  .optional();
export const TypeOptionsSchema = z
  .strictObject({
    timeout: LocatorTimeout,
    delay: z.number().min(0).optional().describe("Ms between keys (default 0)."),
  })
  .optional();
export type LocatorActionOptions = NonNullable<z.input<typeof LocatorOptionsSchema>>;
const Text = z.string({ error: "expected a string" });

/**
 * Calls that act on the page as a user would: once one returns, the changes its own handlers
 * made are its result, not a page still moving (see domActivity.ts).
 */
const INPUTS = new Set(["click", "hover", "fill", "type", "press", "selectOption"]);

const RETRY_DELAYS_MS = [0, 20, 50, 100, 100, 250, 500];

/** Scrolls what scrolls for `el`: itself, its nearest scrollable ancestor, else the page. */
const SCROLL = inPage((el: Element, { to, by }: { to?: number; by?: number }) => {
  const doc = el.ownerDocument;
  let target: Element | null = el;
  while (target && target !== doc.documentElement && target !== doc.body) {
    const style = getComputedStyle(target);
    if (/auto|scroll/.test(style.overflowY) && target.scrollHeight > target.clientHeight) break;
    target = target.parentElement;
  }
  const scroller =
    !target || target === doc.documentElement || target === doc.body
      ? (doc.scrollingElement ?? doc.documentElement)
      : target;
  if (to !== undefined) scroller.scrollTop = (scroller.scrollHeight - scroller.clientHeight) * to;
  if (by !== undefined) scroller.scrollTop += scroller.clientHeight * by;
});

/**
 * Told of the element once it is resolved, before an action touches it; what it throws stops
 * the action. `identity`: the same check made on the element's identity alone, read in the page
 * (elementIdentity.ts): a click on an outline XPath then needs no element handle.
 */
export type ElementGuard = ((element: ElementHandle) => Promise<void>) & {
  identity?: (seen: ElementIdentity) => Promise<void>;
};

/** Work an action starts on its element alongside the guard's check, undone if the guard refuses. */
interface Preparation<P> {
  start(element: ElementHandle, frame: Frame): Promise<P>;
  drop(prepared: P | undefined): Promise<void>;
}

/** How an action runs besides its element's `run`. */
interface ActWays<P> {
  /** Its options' schema (default: just a timeout). */
  schema?: z.ZodType;
  prepare?: Preparation<P>;
  /** A try before any element is resolved; true when it did the action (only for `void` actions). */
  first?: (deadline: Deadline) => Promise<boolean>;
}

export class DeepLocator {
  /** A selector that cannot be read fails its first action, as Playwright's locators do. */
  private readonly parsed: ParsedSelector | InvalidSelectorError;

  constructor(
    private readonly page: Page,
    readonly selector: string,
    /** Takes secrets out of an error before it is thrown (the client's redactor). */
    private readonly scrub: <E>(error: E) => E = (error) => error,
    /** The action cache's check that the element is still the one recorded (ElementGuard). */
    private readonly guard?: ElementGuard,
    /** Nothing matching is no reason to wait: the caller saw the element there a moment ago. */
    private readonly present = false,
  ) {
    try {
      this.parsed = parseSelector(selector);
    } catch (error) {
      if (!(error instanceof InvalidSelectorError)) throw error;
      this.parsed = error;
    }
  }

  toString(): string {
    return `deepLocator(${JSON.stringify(this.selector)})`;
  }

  /** How many elements match now (no waiting; 0 while the page is between documents). */
  async count(): Promise<number> {
    const handles = (await this.resolveNow())?.handles ?? [];
    await disposeAll(handles);
    return handles.length;
  }

  click(options: z.input<typeof ClickOptionsSchema> = {}) {
    const click = options ?? {};
    // A guarded click scrolls only once its guard agrees (see act's `prepare`).
    const scroll = !this.guard;
    return this.act<void, Aim>(
      "click",
      options,
      async (el, d, frame, aim) => {
        let aimed = aim;
        if (aimed && !("end" in aimed) && aimed.wait === OUT_OF_VIEW)
          aimed = await aimClick(this.page, frame, el);
        // At once when the page shows nothing to wait for; else Playwright's waits and retries.
        if (aimed && "end" in aimed && (await clickAimed(this.page, aimed, click, d))) return;
        await el.click({ ...click, timeout: d.remaining() });
      },
      {
        schema: ClickOptionsSchema,
        first: (d) => this.clickAtOnce(click, d),
        prepare: { start: (el, frame) => aimClick(this.page, frame, el, scroll), drop: dropAim },
      },
    );
  }

  /** The usual click, with no element handle (directClick.ts); false when it did not click. */
  private async clickAtOnce(options: DirectClickOptions, d: Deadline): Promise<boolean> {
    const { parsed, guard } = this;
    if (parsed instanceof InvalidSelectorError || parsed.frames.length) return false;
    if (parsed.target.kind !== "xpath" || (guard && !guard.identity)) return false;
    return clickAtXPath(this.page, parsed.target.xpath, guard?.identity, options, d);
  }

  hover(options: LocatorActionOptions = {}) {
    return this.act("hover", options, (el, d) => el.hover({ timeout: d.remaining() }));
  }

  fill(value: string, options: LocatorActionOptions = {}) {
    return this.act("fill", options, (el, d) =>
      el.fill(parseInput(Text, value, `${this}.fill.value`), { timeout: d.remaining() }),
    );
  }

  /** Focuses the element and types `text` key by key. */
  async type(text: string, options: z.input<typeof TypeOptionsSchema> = {}) {
    parseInput(Text, text, `${this}.type.text`);
    return this.act(
      "type",
      options,
      async (el, d) => {
        await el.focus();
        // Key by key, so that a timeout stops the typing instead of leaving it running.
        for (const key of text) {
          if (d.signal.aborted) throw d.signal.reason;
          await this.page.keyboard.type(key, { delay: options.delay ?? 0 });
        }
      },
      { schema: TypeOptionsSchema },
    );
  }

  /**
   * Puts a variable's value into the element itself, not as keys (guardedInput.ts): `replace`
   * as fill does, else after what it holds, one checked character at a time. An element
   * replaced mid-way is found again and the rest goes into the new one.
   */
  putVariable(
    value: string,
    how: { replace: boolean; shownAs: string },
    options: LocatorActionOptions = {},
  ) {
    parseInput(Text, value, `${this}.${how.replace ? "fill" : "type"}.value`);
    let typed = 0;
    return this.act(how.replace ? "fill" : "type", options, async (el, d) => {
      const put = { ...how, perCharacter: !how.replace, signal: d.signal };
      try {
        typed = await putValue(el, value, put, typed);
      } catch (error) {
        if (error instanceof DetachedWhileTyping) typed = error.typed;
        throw error;
      }
    });
  }

  press(key: string, options: LocatorActionOptions = {}) {
    return this.act("press", options, (el, d) =>
      el.press(parseInput(Text.min(1), key, `${this}.press.key`), { timeout: d.remaining() }),
    );
  }

  selectOption(values: string | string[], options: LocatorActionOptions = {}) {
    return this.act("selectOption", options, (el, d) =>
      el.selectOption(
        parseInput(z.union([Text, z.array(Text)]), values, `${this}.selectOption.values`),
        {
          timeout: d.remaining(),
        },
      ),
    );
  }

  scrollIntoView(options: LocatorActionOptions = {}) {
    return this.act("scrollIntoView", options, (el, d) =>
      el.scrollIntoViewIfNeeded({ timeout: d.remaining() }),
    );
  }

  /** Scrolls the element (the page, for the document element or body) to `fraction` (0..1) of its height. */
  scrollTo(fraction: number, options: LocatorActionOptions = {}) {
    const f = parseInput(z.number().min(0).max(1), fraction, `${this}.scrollTo.fraction`);
    return this.act("scrollTo", options, (el) => el.evaluate(SCROLL, { to: f }));
  }

  /** Scrolls the element (or the page) by `screens` of its visible height, up when negative. */
  scrollByScreens(screens: number, options: LocatorActionOptions = {}) {
    const n = parseInput(z.number(), screens, `${this}.scrollByScreens.screens`);
    return this.act("scrollByScreens", options, (el) => el.evaluate(SCROLL, { by: n }));
  }

  boundingBox(options: LocatorActionOptions = {}) {
    return this.act("boundingBox", options, (el) => el.boundingBox());
  }

  /** The element's tag name, lower case. */
  tagName(options: LocatorActionOptions = {}) {
    return this.act("tagName", options, (el) => el.evaluate((e) => (e as Element).localName));
  }

  textContent(options: LocatorActionOptions = {}) {
    return this.act("textContent", options, (el) => el.textContent());
  }

  innerText(options: LocatorActionOptions = {}) {
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText(), not the DOM property
    return this.act("innerText", options, (el) => el.innerText());
  }

  getAttribute(name: string, options: LocatorActionOptions = {}) {
    const attribute = parseInput(Text, name, `${this}.getAttribute.name`);
    return this.act("getAttribute", options, (el) => el.getAttribute(attribute));
  }

  inputValue(options: LocatorActionOptions = {}) {
    return this.act("inputValue", options, (el) => el.inputValue());
  }

  isVisible(options: LocatorActionOptions = {}) {
    return this.act("isVisible", options, (el) => el.isVisible());
  }

  /** The element itself; the caller disposes it. */
  async elementHandle(options: LocatorActionOptions = {}): Promise<ElementHandle> {
    return withTimeout(
      `${this}.elementHandle`,
      this.timeout(options),
      this.waitingFor,
      async (d) => (await this.waitForOne(d)).element,
    ).catch((error: unknown) => {
      throw this.surfaced("elementHandle", error);
    });
  }

  /** What the timeout error says was awaited, with why the last try failed. */
  private lastMiss: string | undefined;
  private readonly waitingFor = () =>
    `${this} to match exactly one element${this.lastMiss ? ` (last try: ${this.lastMiss})` : ""}`;

  private timeout(options: LocatorActionOptions): number {
    return (
      parseInput(TimeoutSchema.optional(), options.timeout, `${this}.options.timeout`) ??
      DEFAULT_TIMEOUT_MS
    );
  }

  private async act<T, P = undefined>(
    name: string,
    options: LocatorActionOptions,
    run: (element: ElementHandle, deadline: Deadline, frame: Frame, prepared?: P) => Promise<T>,
    how: ActWays<P> = {},
  ): Promise<T> {
    const { schema = LocatorOptionsSchema, prepare, first } = how;
    parseInput(schema, options, `${this}.${name}.options`);
    return withTimeout(`${this}.${name}`, this.timeout(options), this.waitingFor, async (d) => {
      if (first && (await first(d))) {
        if (INPUTS.has(name) && !d.signal.aborted) noteAction(this.page);
        return undefined as T;
      }
      for (;;) {
        const { element, frame } = await this.waitForOne(d);
        d.step("resolved");
        // Sent with the guard's own call, not after its answer: one round trip for both.
        const prepared = prepare?.start(element, frame);
        prepared?.catch(() => {});
        try {
          try {
            await this.guard?.(element);
          } catch (error) {
            if (prepared) await prepare!.drop(await prepared.catch(() => undefined));
            throw error;
          }
          const result = await run(element, d, frame, await prepared);
          // An action that outlived its deadline is not ours to account for.
          if (INPUTS.has(name) && !d.signal.aborted) noteAction(this.page);
          return result;
        } catch (error) {
          // Re-rendered between finding and acting: find it again, within the same deadline.
          if (!DETACHED.test(error instanceof Error ? error.message : "") || d.signal.aborted)
            throw error;
          d.step("element was replaced");
          this.lastMiss = "the element was replaced while acting";
        } finally {
          // Awaited: the caller's next capture then starts after the page has had this round
          // trip to run what the action's zero-delay timers add (counted as the action's own).
          await element.dispose().catch(() => {});
        }
      }
    }).catch((error: unknown) => {
      throw this.surfaced(name, error);
    });
  }

  /**
   * What a failed call throws: one readable message naming this locator and the call, with
   * Playwright's own error (its call log) as the cause; secrets taken out of both.
   */
  private surfaced(name: string, error: unknown): unknown {
    return this.scrub(readableError(`${this}.${name}`, error));
  }

  /** The one element the selector matches, and the frame it is in. */
  private async waitForOne(deadline: Deadline): Promise<{ element: ElementHandle; frame: Frame }> {
    for (let attempt = 0; ; attempt++) {
      // The first try at once: even a zero timer costs a turn of the event loop.
      if (attempt > 0)
        await sleep(
          RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!,
          deadline.signal,
        );
      if (deadline.signal.aborted) throw deadline.signal.reason;
      const found = await this.resolveNow();
      if (found && found.handles.length === 1) {
        const element = found.handles[0]!;
        // Found after the caller gave up: act on nothing, leak nothing.
        if (!deadline.signal.aborted) return { element, frame: found.frame };
        await element.dispose().catch(() => {});
        throw deadline.signal.reason;
      }
      if (!found) continue;
      await disposeAll(found.handles);
      if (found.handles.length > 1) {
        throw this.explain(new AmbiguousSelectorError(this.selector, found.handles.length));
      }
      this.lastMiss = found.note ?? "no match";
      if (this.present) throw new XPathResolutionError(this.selector, "it matches nothing now");
      if (attempt === 0)
        deadline.step(found.note ? `waiting: ${found.note}` : "waiting for a match");
    }
  }

  /** One attempt; undefined when the page was between documents (navigation): try again. */
  private async resolveNow(): Promise<Resolution | undefined> {
    if (this.parsed instanceof InvalidSelectorError) throw this.parsed;
    const parsed = this.parsed;
    try {
      return await resolveSelector(this.page, parsed);
    } catch (error) {
      if (TRANSIENT.test(error instanceof Error ? error.message : "")) {
        this.lastMiss = "the page was navigating";
        return undefined;
      }
      throw this.explain(error);
    }
  }

  private explain(error: unknown): unknown {
    if (error instanceof AmbiguousSelectorError) {
      return new ServiceError(`${this}: ${error.message}. Make the selector more specific.`, {
        cause: error,
      });
    }
    return error;
  }
}

/** Errors of a page between two documents, or of a frame being replaced: worth another try. */
const TRANSIENT =
  /Execution context was destroyed|Cannot find context with specified id|Frame was detached|Frame has been detached|Element is not attached|No node with given id|Could not find node with given id|Inspected target navigated or closed/i;

/** An element found, then removed or replaced before the action reached it. */
const DETACHED =
  /Element is not attached to the DOM|Node is detached from document|Element is detached/i;
