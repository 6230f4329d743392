/**
 * The error classes of the interface reference. Every library error extends ServiceError,
 * has a fixed `name`, says what failed and what to do next, and keeps the `cause` when there is one.
 */

export interface ServiceErrorOptions {
  cause?: unknown;
}

export class ServiceError extends Error {
  override name = "ServiceError";
  /** Stable across releases and processes: what a program branches on (docs/reference/errors.md). */
  static readonly code: string = "SERVICE_ERROR";
  get code(): string {
    return (this.constructor as typeof ServiceError).code;
  }
  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** The library code of an error (`error.code`), or undefined for an error that is not ours. */
export function codeOf(error: unknown): string | undefined {
  return error instanceof ServiceError ? error.code : undefined;
}

/** Extracted data does not match the schema the caller gave. */
export class ZodSchemaValidationError extends ServiceError {
  override name = "ZodSchemaValidationError";
  static override readonly code = "EXTRACTION_SCHEMA_MISMATCH";
  constructor(
    readonly received: unknown,
    readonly issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
    options: ServiceErrorOptions = {},
  ) {
    const lines = issues.map(
      (i) => `  ✖ ${i.message}${i.path.length ? ` → at ${i.path.join(".")}` : ""}`,
    );
    super(
      `The extracted data does not match the schema:\n${lines.join("\n")}\nMake the instruction more specific or loosen the schema.`,
      options,
    );
  }
}

export class ServiceDomProcessError extends ServiceError {
  override name = "ServiceDomProcessError";
  static override readonly code = "DOM_PROCESS_FAILED";
  constructor(detail: string, options: ServiceErrorOptions = {}) {
    super(
      `Processing the page's DOM failed: ${detail}. Wait for the page to settle and try again.`,
      options,
    );
  }
}

export class ServiceEvalError extends ServiceError {
  override name = "ServiceEvalError";
  static override readonly code = "EVAL_FAILED";
  constructor(detail: string, options: ServiceErrorOptions = {}) {
    super(`Evaluating JavaScript in the page failed: ${detail}`, options);
  }
}

export class ServiceIframeError extends ServiceError {
  override name = "ServiceIframeError";
  static override readonly code = "IFRAME_UNRESOLVED";
  constructor(
    readonly frameSelector: string,
    detail: string,
    options: ServiceErrorOptions = {},
  ) {
    super(`Cannot resolve the iframe ${frameSelector}: ${detail}`, options);
  }
}

export class ContentFrameNotFoundError extends ServiceError {
  override name = "ContentFrameNotFoundError";
  static override readonly code = "CONTENT_FRAME_NOT_FOUND";
  constructor(
    readonly selector: string,
    options: ServiceErrorOptions = {},
  ) {
    super(
      `No content frame for ${selector}: the element is not an <iframe>/<frame> or its document is gone. Check the frame part of the selector.`,
      options,
    );
  }
}

export class XPathResolutionError extends ServiceError {
  override name = "XPathResolutionError";
  static override readonly code: string = "XPATH_UNRESOLVED";
  constructor(
    readonly xpath: string,
    detail = "it matches no element in the page or its frames",
    options: ServiceErrorOptions = {},
  ) {
    // The reference's name says XPath; a CSS selector is called what it is.
    const kind = /^\s*(xpath=|\/|\()/.test(xpath) ? "XPath" : "Selector";
    super(
      `${kind} ${xpath} does not resolve: ${detail}. Take a new snapshot and use a current selector.`,
      options,
    );
  }
}

/**
 * A selector that cannot be read at all (broken XPath or CSS, nothing after `xpath=`, an empty
 * frame hop): no page could ever match it, so it is the caller's to fix, not to retry. A kind of
 * XPathResolutionError, as the reference raises that for an invalid XPath.
 */
export class InvalidSelectorError extends XPathResolutionError {
  override name = "InvalidSelectorError";
  static override readonly code = "SELECTOR_INVALID";
  constructor(
    /** The selector as the caller gave it. */
    readonly selector: string,
    /** What is wrong with it, e.g. `it is not a valid XPath expression`. */
    readonly reason: string,
    options: ServiceErrorOptions = {},
  ) {
    super(selector, reason, options);
    this.message = `The selector ${JSON.stringify(selector)} is not valid: ${reason}. Write an XPath (/html/body/…, or xpath=…) or a CSS selector, with " >> " between frame hops.`;
  }
}

/** A call names a page (its `frameId`) that is not open in the session. */
export class PageNotFoundError extends ServiceError {
  override name = "PageNotFoundError";
  static override readonly code = "PAGE_NOT_FOUND";
  constructor(
    readonly frameId: string,
    /** The frameIds of the pages open now (the first few), for the message. */
    open: readonly string[] = [],
    options: ServiceErrorOptions = {},
  ) {
    const shown = open.length
      ? ` Open pages: ${open.slice(0, 5).join(", ")}${open.length > 5 ? ", …" : ""}.`
      : "";
    super(
      `No open page has frameId ${JSON.stringify(frameId)}: it was closed, or it belongs to another session. Leave frameId out to use the active page, or pass the frameId of an open page.${shown}`,
      options,
    );
  }
}

export class ServiceShadowRootMissingError extends ServiceError {
  override name = "ServiceShadowRootMissingError";
  static override readonly code = "SHADOW_ROOT_MISSING";
  constructor(
    readonly hostSelector: string,
    options: ServiceErrorOptions = {},
  ) {
    super(
      `The element ${hostSelector} has no shadow root, but the selector crosses one there ("//"). Check the selector.`,
      options,
    );
  }
}

export class LLMResponseError extends ServiceError {
  override name = "LLMResponseError";
  static override readonly code = "MODEL_RESPONSE_INVALID";
  /** HTTP status of the provider's answer, when there was one. */
  readonly status: number | undefined;
  constructor(
    readonly operation: string,
    detail: string,
    options: ServiceErrorOptions & { status?: number } = {},
  ) {
    const status = options.status === undefined ? "" : ` (HTTP ${options.status})`;
    super(`${operation}: the model's answer could not be used${status}: ${detail}`, options);
    this.status = options.status;
  }
}

export class MissingLLMConfigurationError extends ServiceError {
  override name = "MissingLLMConfigurationError";
  static override readonly code = "MODEL_NOT_CONFIGURED";
  /**
   * `missing` names what to set: an environment variable (`OPENAI_API_KEY`) or an option
   * (`model.baseURL`); without it, no model was configured at all.
   */
  constructor(
    readonly missing?: string,
    readonly provider?: string,
    options: ServiceErrorOptions = {},
  ) {
    super(
      missing
        ? `The ${provider ?? "model"} provider needs ${missing}: set it${missing.startsWith("model.") ? "" : ` in the environment, or pass model.apiKey`}.`
        : 'No model is configured. Pass `model: "provider/model"` (with its API key in the option or the provider\'s environment variable) or `llmClient` to the Client.',
      options,
    );
  }
}

export class UnsupportedModelError extends ServiceError {
  override name = "UnsupportedModelError";
  static override readonly code = "MODEL_UNSUPPORTED";
  constructor(
    readonly modelName: string,
    readonly supported: readonly string[],
    /** `advice`: what to change (a sentence, appended to the message). */
    options: ServiceErrorOptions & {
      operation?: string;
      supportedLabel?: string;
      advice?: string;
    } = {},
  ) {
    const advice = options.advice ? ` ${options.advice.replace(/\.$/, "")}.` : "";
    super(
      `Model ${modelName} is not supported for ${options.operation ?? "this operation"}. ${options.supportedLabel ?? "Supported"}: ${supported.join(", ") || "none"}.${advice}`,
      options,
    );
  }
}

export class InvalidAISDKModelFormatError extends ServiceError {
  override name = "InvalidAISDKModelFormatError";
  static override readonly code = "MODEL_NAME_INVALID";
  constructor(
    readonly modelName: string,
    options: ServiceErrorOptions = {},
  ) {
    super(
      `Model name "${modelName}" is not in the form provider/model (for example "openai/gpt-4.1-mini").`,
      options,
    );
  }
}

export class ServiceInitError extends ServiceError {
  override name = "ServiceInitError";
  static override readonly code = "INIT_FAILED";
  constructor(detail: string, options: ServiceErrorOptions = {}) {
    super(`init() failed: ${detail}`, options);
  }
}

export class ServiceNotInitializedError extends ServiceError {
  override name = "ServiceNotInitializedError";
  static override readonly code = "NOT_INITIALIZED";
  constructor(readonly method: string) {
    super(`${method}() was called before init(). Call \`await client.init()\` first.`);
  }
}

export class BrowserbaseSessionNotFoundError extends ServiceError {
  override name = "BrowserbaseSessionNotFoundError";
  static override readonly code = "SESSION_NOT_FOUND";
  constructor(
    readonly sessionId: string,
    options: ServiceErrorOptions = {},
  ) {
    super(
      `Remote session ${sessionId} was not found. It may have ended; start a new one by omitting browserbaseSessionID.`,
      options,
    );
  }
}

export class MissingEnvironmentVariableError extends ServiceError {
  override name = "MissingEnvironmentVariableError";
  static override readonly code = "ENV_VAR_MISSING";
  constructor(
    readonly variable: string,
    readonly purpose: string,
  ) {
    super(
      `${variable} is not set: it is needed for ${purpose}. Set it in the environment or pass the matching option.`,
    );
  }
}

export class ServiceEnvironmentError extends ServiceError {
  override name = "ServiceEnvironmentError";
  static override readonly code = "ENVIRONMENT_INVALID";
  constructor(detail: string, options: ServiceErrorOptions = {}) {
    super(`Invalid environment configuration: ${detail}`, options);
  }
}

/** Not in the reference's table: every bounded wait ends with this, naming what it waited for. */
export class ServiceTimeoutError extends ServiceError {
  override name = "ServiceTimeoutError";
  static override readonly code = "TIMEOUT";
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
    readonly waitingFor: string,
    readonly steps: readonly string[] = [],
    /** What to do about it, when the caller knows (a sentence, appended to the message). */
    options: ServiceErrorOptions & { advice?: string } = {},
  ) {
    const stepText = steps.length ? ` (steps: ${steps.join(", ")})` : "";
    const advice = options.advice ? `. ${options.advice.replace(/\.$/, "")}.` : "";
    super(
      `${method}: ${timeoutMs} ms passed waiting for ${waitingFor}${stepText}${advice}`,
      options,
    );
  }
}

/** Why the browser could not load a document: Chromium's code, in words, with what to do. */
export interface NetFailure {
  /** Chromium's error code, e.g. `net::ERR_CONNECTION_REFUSED`. */
  code: string;
  /** What happened, e.g. "the connection was refused". */
  reason: string;
  /** What to do, e.g. "Check the URL and that the server is up". */
  advice: string;
}

/** Not in the reference's table: a navigation (goto, reload, back, forward) failed in the network. */
export class ServiceNavigationError extends ServiceError {
  override name = "ServiceNavigationError";
  static override readonly code = "NAVIGATION_FAILED";
  /** Chromium's error code, e.g. `net::ERR_CONNECTION_REFUSED`. */
  readonly netError: string;
  /** The address that failed, without the user name and password it may have carried. */
  readonly url: string;
  constructor(
    readonly method: string,
    url: string,
    failure: NetFailure,
    options: ServiceErrorOptions = {},
  ) {
    const shown = withoutCredentials(url);
    super(
      `${method}: could not open ${shown}: ${failure.reason} (${failure.code}). ${failure.advice}.`,
      options,
    );
    this.url = shown;
    this.netError = failure.code;
  }
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return url;
  }
}

/** Not in the reference's table: a public input failed its zod schema. */
export class ServiceValidationError extends ServiceError {
  override name = "ServiceValidationError";
  static override readonly code = "VALIDATION_FAILED";
  constructor(
    readonly where: string,
    readonly issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  ) {
    const lines = issues.map(
      (i) =>
        `  ✖ ${i.message}${i.path.length ? ` → at ${[where, ...i.path.map(String)].join(".")}` : ` → at ${where}`}`,
    );
    super(`Invalid ${where}:\n${lines.join("\n")}`);
  }
}

/** Not in the reference's table: the navigation policy refused an address (a scheme or a metadata host). */
export class NavigationRefusedError extends ServiceError {
  override name = "NavigationRefusedError";
  static override readonly code = "NAVIGATION_REFUSED";
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    // The reason names the setting that would let it through, where one exists.
    super(`Refused to navigate to ${url}: ${reason}.`);
  }
}

/** A model call would take the client (or the job) past its token cap: it was not made. */
export class TokenCapError extends ServiceError {
  override name = "TokenCapError";
  static override readonly code = "TOKEN_CAP_EXCEEDED";
  constructor(
    readonly used: number,
    readonly cap: number,
  ) {
    super(
      `Model tokens used: ${used} of a cap of ${cap}; the next model call would go past it and was not made.`,
    );
  }
}

/**
 * A context (a browser profile kept between sessions) could not be read, written or used: not
 * found, in use by another session, past its size, or not openable with this service's key.
 */
export class ContextError extends ServiceError {
  override name = "ContextError";
  static override readonly code: string = "CONTEXT_ERROR";
}

/** No context of that id in this project (it never was, was deleted, or is another project's). */
export class ContextNotFoundError extends ContextError {
  override name = "ContextNotFoundError";
  static override readonly code = "CONTEXT_NOT_FOUND";
  constructor(readonly contextId: string) {
    super(
      `No context "${contextId}" in this project: create one with POST /v1/contexts, and use it with the key that created it.`,
    );
  }
}

/** A context is in use by a live session, and a second session may not take it at once. */
export class ContextInUseError extends ContextError {
  override name = "ContextInUseError";
  static override readonly code = "CONTEXT_IN_USE";
  constructor(readonly contextId: string) {
    super(
      `Context "${contextId}" is in use by another session: end that session first (one session holds a context at a time, so that one save never overwrites another's).`,
    );
  }
}
