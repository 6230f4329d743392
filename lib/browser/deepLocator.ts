/**
 * A lazy, immutable description of one element anywhere in the page: through same-origin and
 * out-of-process iframes, open and closed shadow roots. Nothing touches the page until an
 * action runs; the action requires exactly one match and waits for it until its deadline.
 */
import type { ElementHandle, Page } from "playwright-core";
import { ServiceError, XPathResolutionError } from "../errors.js";
import { DEFAULT_TIMEOUT_MS, type Deadline, sleep, withTimeout } from "../timeout.js";
import { AmbiguousSelectorError, disposeAll, resolveSelector } from "./elementResolver.js";
import { type ParsedSelector, parseSelector } from "./selector.js";

export interface LocatorActionOptions {
  timeout?: number;
}

const RETRY_DELAYS_MS = [0, 20, 50, 100, 100, 250, 500];

export class DeepLocator {
  private readonly parsed: ParsedSelector;

  constructor(
    private readonly page: Page,
    readonly selector: string,
  ) {
    try {
      this.parsed = parseSelector(selector);
    } catch (error) {
      throw new ServiceError(`deepLocator: ${(error as Error).message}`, { cause: error });
    }
  }

  toString(): string {
    return `deepLocator(${JSON.stringify(this.selector)})`;
  }

  /** How many elements match now (no waiting). */
  async count(): Promise<number> {
    const { handles } = await this.resolveNow();
    await disposeAll(handles);
    return handles.length;
  }

  click(
    options: LocatorActionOptions & {
      button?: "left" | "right" | "middle";
      clickCount?: number;
    } = {},
  ) {
    return this.act("click", options, (el, d) => el.click({ ...options, timeout: d.remaining() }));
  }

  hover(options: LocatorActionOptions = {}) {
    return this.act("hover", options, (el, d) => el.hover({ timeout: d.remaining() }));
  }

  fill(value: string, options: LocatorActionOptions = {}) {
    return this.act("fill", options, (el, d) => el.fill(value, { timeout: d.remaining() }));
  }

  /** Focuses the element and types `text` key by key. */
  type(text: string, options: LocatorActionOptions & { delay?: number } = {}) {
    return this.act("type", options, async (el) => {
      await el.focus();
      await this.page.keyboard.type(text, { delay: options.delay ?? 0 });
    });
  }

  press(key: string, options: LocatorActionOptions = {}) {
    return this.act("press", options, (el, d) => el.press(key, { timeout: d.remaining() }));
  }

  selectOption(values: string | string[], options: LocatorActionOptions = {}) {
    return this.act("selectOption", options, (el, d) =>
      el.selectOption(values, { timeout: d.remaining() }),
    );
  }

  scrollIntoView(options: LocatorActionOptions = {}) {
    return this.act("scrollIntoView", options, (el, d) =>
      el.scrollIntoViewIfNeeded({ timeout: d.remaining() }),
    );
  }

  textContent(options: LocatorActionOptions = {}) {
    return this.act("textContent", options, (el) => el.textContent());
  }

  innerText(options: LocatorActionOptions = {}) {
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText(), not the DOM property
    return this.act("innerText", options, (el) => el.innerText());
  }

  inputValue(options: LocatorActionOptions = {}) {
    return this.act("inputValue", options, (el) => el.inputValue());
  }

  isVisible(options: LocatorActionOptions = {}) {
    return this.act("isVisible", options, (el) => el.isVisible());
  }

  /** The element itself; the caller disposes it. */
  elementHandle(options: LocatorActionOptions = {}): Promise<ElementHandle> {
    return withTimeout(
      `${this}.elementHandle`,
      options.timeout ?? DEFAULT_TIMEOUT_MS,
      this.waitingFor,
      (d) => this.waitForOne(d),
    );
  }

  private readonly waitingFor = () => `${this} to match exactly one element`;

  private act<T>(
    name: string,
    options: LocatorActionOptions,
    run: (element: ElementHandle, deadline: Deadline) => Promise<T>,
  ): Promise<T> {
    return withTimeout(
      `${this}.${name}`,
      options.timeout ?? DEFAULT_TIMEOUT_MS,
      this.waitingFor,
      async (d) => {
        const element = await this.waitForOne(d);
        d.step("resolved");
        try {
          return await run(element, d);
        } finally {
          await element.dispose().catch(() => {});
        }
      },
    );
  }

  private async waitForOne(deadline: Deadline): Promise<ElementHandle> {
    for (let attempt = 0; ; attempt++) {
      await sleep(RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!, deadline.signal);
      if (deadline.signal.aborted) throw deadline.signal.reason;
      const { handles, pendingHop } = await this.resolveNow();
      if (handles.length === 1) return handles[0]!;
      await disposeAll(handles);
      if (handles.length > 1)
        throw this.explain(new AmbiguousSelectorError(this.selector, handles.length));
      if (attempt === 0)
        deadline.step(pendingHop ? `waiting for frame ${pendingHop}` : "waiting for a match");
    }
  }

  private async resolveNow() {
    try {
      return await resolveSelector(this.page, this.parsed);
    } catch (error) {
      throw this.explain(error);
    }
  }

  private explain(error: unknown): unknown {
    if (error instanceof AmbiguousSelectorError) {
      return new ServiceError(`${this}: ${error.message}. Make the selector more specific.`, {
        cause: error,
      });
    }
    const message = error instanceof Error ? error.message : String(error);
    if (
      this.parsed.target.kind === "xpath" &&
      /valid XPath expression|XPathResult|evaluate/i.test(message)
    ) {
      return new XPathResolutionError(this.selector, "it is not a valid XPath expression", {
        cause: error,
      });
    }
    return error;
  }
}
