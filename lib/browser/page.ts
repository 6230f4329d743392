/**
 * The page users hold. Playwright's signatures, every wait bounded, inputs checked at the
 * boundary. Interaction goes through DeepLocator so that every selector form works everywhere.
 */
import type { ElementHandle, Page as PlaywrightPage, Response } from "playwright-core";
import { z } from "zod";
import { ServiceError, ServiceEvalError, ServiceTimeoutError } from "../errors.js";
import {
  type NavigationOptions,
  NavigationOptionsSchema,
  parseInput,
  SelectorSchema,
  TimeoutSchema,
  type WaitUntilSchema,
} from "../options.js";
import { navigationError, readableError, readableReason, surface } from "../readableError.js";
import { DEFAULT_TIMEOUT_MS, withTimeout } from "../timeout.js";
import { ClickOptionsSchema, DeepLocator, TypeOptionsSchema } from "./deepLocator.js";
import { heldDialog } from "./dialogs.js";
import { unlessUnreachable } from "./egressProxy.js";
import { ownSession } from "./frameSessions.js";
import { inPage } from "./inPage.js";
import { maskValues } from "./valueMask.js";

export {
  type NavigationOptions,
  NavigationOptionsSchema,
  WaitUntilSchema,
} from "../options.js";

export const GotoUrlSchema = z
  .string({ error: "expected the URL to open, as a string" })
  .min(1, { error: "expected a non-empty URL" });

export interface NavigationRecord {
  url: string;
  options: NavigationOptions;
  result: { url: string; status: number | null };
}

export interface PageHooks {
  onNavigate(record: NavigationRecord): void;
  /** Takes secrets out of an error (a URL's credentials, a key the client knows) before it is thrown. */
  scrub<E>(error: E): E;
  /** Told everything a failed call said (Playwright's call log included), for a debug line. */
  onFailure(method: string, detail: string): void;
}

/** Playwright's screenshot options; the picture is of the viewport unless `fullPage`. */
export const ScreenshotOptionsSchema = z
  .strictObject({
    timeout: TimeoutSchema.optional().describe("The most it may take, in ms (default 30000)."),
    type: z.enum(["png", "jpeg"]).optional().describe('The image format (default "png").'),
    quality: z.number().int().min(0).max(100).optional().describe("jpeg only: 0–100."),
    fullPage: z.boolean().optional().describe("The whole scrollable page instead of the viewport."),
    clip: z
      .strictObject({
        x: z.number(),
        y: z.number(),
        width: z.number().positive(),
        height: z.number().positive(),
      })
      .optional()
      .describe("Only this rectangle of the page, in CSS pixels."),
    omitBackground: z
      .boolean()
      .optional()
      .describe("A transparent background instead of white (png)."),
    animations: z
      .enum(["disabled", "allow"])
      .optional()
      .describe('"disabled" stops CSS animations and transitions for the picture.'),
    caret: z.enum(["hide", "initial"]).optional().describe("Whether the text caret shows."),
    scale: z
      .enum(["css", "device"])
      .optional()
      .describe("One image pixel per CSS pixel, or per device pixel."),
    path: z.string().min(1).optional().describe("Also writes the image to this file."),
    maskValues: z
      .array(z.string())
      .optional()
      .describe(
        "Wayfarer's: painted over in the picture, every input, text area and editable region whose text holds one of these (values of two characters or more), in every frame and open shadow root; the page keeps them.",
      ),
  })
  .optional();
export type ScreenshotOptions = z.input<typeof ScreenshotOptionsSchema>;

const PageFunctionSchema = z.union(
  [z.string().min(1), z.custom<(...args: never[]) => unknown>((v) => typeof v === "function")],
  {
    error: "expected a function, or a string of JavaScript, to run in the page",
  },
);

export class Page {
  private id: Promise<string> | undefined;

  constructor(
    /** The Playwright page underneath, for anything this class does not offer. */
    readonly playwrightPage: PlaywrightPage,
    private readonly hooks: PageHooks,
  ) {}

  async goto(url: string, options?: NavigationOptions): Promise<Response | null> {
    const target = parseInput(GotoUrlSchema, url, "goto.url");
    const { opts, response } = await this.navigate("goto", options, target, (o, given) =>
      this.playwrightPage.goto(target, { ...o, referer: given?.referer }),
    );
    this.hooks.onNavigate({
      url: target,
      options: opts,
      result: { url: this.playwrightPage.url(), status: response?.status() ?? null },
    });
    return response;
  }

  async reload(options?: NavigationOptions): Promise<Response | null> {
    const url = this.url();
    return (await this.navigate("reload", options, url, (o) => this.playwrightPage.reload(o)))
      .response;
  }

  async goBack(options?: NavigationOptions): Promise<Response | null> {
    return (
      await this.navigate("goBack", options, "the previous page", (o) =>
        this.playwrightPage.goBack(o),
      )
    ).response;
  }

  async goForward(options?: NavigationOptions): Promise<Response | null> {
    return (
      await this.navigate("goForward", options, "the next page", (o) =>
        this.playwrightPage.goForward(o),
      )
    ).response;
  }

  /** Clicks the one element `selector` matches (XPath, `xpath=`, or CSS with `>>` frame hops). */
  async click(selector: string, options?: z.input<typeof ClickOptionsSchema>): Promise<void> {
    const opts = parseInput(ClickOptionsSchema, options, "click.options");
    await this.deepLocator(parseInput(SelectorSchema, selector, "click.selector")).click(opts);
  }

  /** Focuses the one element `selector` matches and types `text` key by key. */
  async type(
    selector: string,
    text: string,
    options?: z.input<typeof TypeOptionsSchema>,
  ): Promise<void> {
    const opts = parseInput(TypeOptionsSchema, options, "type.options");
    const value = parseInput(z.string({ error: "expected the text to type" }), text, "type.text");
    await this.deepLocator(parseInput(SelectorSchema, selector, "type.selector")).type(value, opts);
  }

  /** Presses a key (or chord such as "Control+A") on whatever has focus. */
  async keyPress(key: string, options?: z.input<typeof TypeOptionsSchema>): Promise<void> {
    const opts = parseInput(TypeOptionsSchema, options, "keyPress.options");
    const k = parseInput(
      z.string().min(1, { error: 'expected a key such as "Enter"' }),
      key,
      "keyPress.key",
    );
    await this.surfaced(
      "keyPress",
      withTimeout(
        "keyPress",
        opts?.timeout ?? DEFAULT_TIMEOUT_MS,
        `the page to take key ${k}`,
        () => this.playwrightPage.keyboard.press(k, { delay: opts?.delay ?? 0 }),
      ),
    );
  }

  /** Playwright's own locator (its selector engines; does not cross closed shadow roots). */
  locator(selector: string) {
    return this.playwrightPage.locator(parseInput(SelectorSchema, selector, "locator.selector"));
  }

  /**
   * A locator through iframes (`>>`) and shadow roots. `guard` (the action cache's) is told of
   * the element once resolved, before an action touches it, and may stop the action. `present`:
   * the element is on the page now (the agent read it there): an action fails at once when
   * nothing matches, instead of waiting for it to come.
   */
  deepLocator(
    selector: string,
    guard?: (element: ElementHandle) => Promise<void>,
    present = false,
  ): DeepLocator {
    return new DeepLocator(
      this.playwrightPage,
      parseInput(SelectorSchema, selector, "deepLocator.selector"),
      (error) => this.hooks.scrub(error),
      guard,
      present,
    );
  }

  url(): string {
    return this.playwrightPage.url();
  }

  async title(options: { timeout?: number } = {}): Promise<string> {
    const timeout = parseInput(TimeoutSchema.optional(), options.timeout, "title.options.timeout");
    return this.surfaced(
      "title",
      withTimeout("title", timeout ?? DEFAULT_TIMEOUT_MS, "the page to answer", () =>
        this.playwrightPage.title(),
      ),
    );
  }

  async screenshot(options?: ScreenshotOptions): Promise<Buffer> {
    const { maskValues: values, ...opts } =
      parseInput(ScreenshotOptionsSchema, options, "screenshot.options") ?? {};
    const unmask = await maskValues(this.playwrightPage, values ?? []);
    try {
      return await this.surfaced(
        "screenshot",
        this.playwrightPage.screenshot({ ...opts, timeout: opts.timeout ?? DEFAULT_TIMEOUT_MS }),
      );
    } finally {
      await unmask();
    }
  }

  /** Playwright's evaluate, bounded: a script that never returns fails the call instead of hanging it. */
  async evaluate<R, Arg>(
    pageFunction: string | ((arg: Arg) => R | Promise<R>),
    arg?: Arg,
    options: { timeout?: number } = {},
  ): Promise<R> {
    parseInput(PageFunctionSchema, pageFunction, "evaluate.pageFunction");
    const timeout = parseInput(
      TimeoutSchema.optional(),
      options.timeout,
      "evaluate.options.timeout",
    );
    return this.surfaced(
      "evaluate",
      withTimeout("evaluate", timeout ?? DEFAULT_TIMEOUT_MS, "the page script to return", () =>
        this.playwrightPage.evaluate<R, Arg>(
          (typeof pageFunction === "function" ? inPage(pageFunction) : pageFunction) as never,
          arg as Arg,
        ),
      ),
      // The script's own error, in one line, without Playwright's stack and method name.
      (error) =>
        error instanceof Error && !(error instanceof ServiceError)
          ? new ServiceEvalError(readableReason(error), { cause: error })
          : error,
    );
  }

  close(): Promise<void> {
    return this.playwrightPage.close();
  }

  /**
   * The page's id across a process boundary: its main frame's id, which is its CDP target id
   * (the `frameId` of the v1 wire). Asked once, then kept: it never changes for a page.
   */
  frameId(): Promise<string> {
    this.id ??= ownSession(this.playwrightPage, this.playwrightPage.mainFrame()).then((own) => {
      if (!own) throw new ServiceError("This page has no CDP target of its own to name it by.");
      return own.rootFrameId();
    });
    // A failed ask is not kept: the next call asks again.
    this.id.catch(() => {
      this.id = undefined;
    });
    return this.id;
  }

  isClosed(): boolean {
    return this.playwrightPage.isClosed();
  }

  /**
   * Checks the options, then runs one navigation bounded by its timeout. A failure surfaces as
   * one readable message (`navigationError`); its full text goes to a debug line.
   */
  private async navigate(
    method: string,
    options: NavigationOptions,
    /** What is being opened, for the error (the URL, or "the previous page"). */
    target: string,
    run: (
      o: { waitUntil: z.infer<typeof WaitUntilSchema>; timeout: number },
      given: NavigationOptions,
    ) => Promise<Response | null>,
  ): Promise<{ opts: NavigationOptions; response: Response | null }> {
    const opts = parseInput(NavigationOptionsSchema, options, `${method}.options`);
    const timeout = opts?.timeout ?? DEFAULT_TIMEOUT_MS;
    const waitUntil = opts?.waitUntil ?? "load";
    // Playwright enforces the same limit; ours also bounds the wait when the page is wedged.
    const response = await this.surfaced(
      method,
      withTimeout(
        method,
        timeout,
        `the ${waitUntil} event`,
        () => run({ waitUntil, timeout }, opts).then(unlessUnreachable),
        { advice: "Check that the server answers, or pass a longer timeout" },
      ).catch((error: unknown) => {
        // The server is not to blame when the page's own dialog keeps the tab where it is.
        const dialog = heldDialog(this.playwrightPage);
        if (!(error instanceof ServiceTimeoutError) || !dialog) throw error;
        throw new ServiceTimeoutError(
          method,
          timeout,
          `the ${waitUntil} event while the page held ${dialog} open that the browser refused to settle`,
          error.steps,
          {
            cause: error.cause,
            advice: "The tab cannot leave that page: close it and use another",
          },
        );
      }),
      (error) => navigationError(method, target, error),
    );
    return { opts, response };
  }

  /**
   * What a failed call throws: our own errors as they are, a foreign one (Playwright's) as one
   * readable message naming the call (`wrap`), secrets taken out. Playwright's whole text (its
   * call log) goes to a debug line.
   */
  private surfaced<T>(
    method: string,
    work: Promise<T>,
    wrap: (error: unknown) => unknown = (error) => readableError(method, error),
  ): Promise<T> {
    return work.catch((error: unknown) => {
      throw this.hooks.scrub(
        surface(method, error, (detail) => this.hooks.onFailure(method, detail), wrap),
      );
    });
  }
}
