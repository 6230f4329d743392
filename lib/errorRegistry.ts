/**
 * Every public error class in one list: its stable code, when it is thrown and what to do. The
 * reference page (docs/reference/errors.md) is generated from it, and the wire format rebuilds
 * errors by it; a test fails when an exported error class is missing here.
 */
import {
  BrowserbaseSessionNotFoundError,
  ContentFrameNotFoundError,
  ContextError,
  ContextInUseError,
  ContextNotFoundError,
  InvalidAISDKModelFormatError,
  InvalidSelectorError,
  LLMResponseError,
  MissingEnvironmentVariableError,
  MissingLLMConfigurationError,
  NavigationRefusedError,
  PageNotFoundError,
  ServiceDomProcessError,
  ServiceEnvironmentError,
  ServiceError,
  ServiceEvalError,
  ServiceIframeError,
  ServiceInitError,
  ServiceNavigationError,
  ServiceNotInitializedError,
  ServiceShadowRootMissingError,
  ServiceTimeoutError,
  ServiceValidationError,
  TokenCapError,
  UnsupportedModelError,
  XPathResolutionError,
  ZodSchemaValidationError,
} from "./errors.js";

export interface ErrorEntry {
  type: (abstract new (...args: never[]) => ServiceError) & { readonly code: string };
  /** The class name, as `error.name` carries it. */
  name: string;
  /** Stable across releases and processes: what a program branches on (the class's static `code`). */
  code: string;
  /** When it is thrown, and by what. */
  when: string;
  /** What to do about it. */
  whatToDo: string;
  /** Fields the error carries beyond `name`, `message` and `cause`. */
  fields?: readonly string[];
  /**
   * The HTTP status the service answers with when an operation fails with it (a streamed
   * answer is 200 and says it in its `system {status: "error"}` frame). 4xx: the caller's to
   * fix, as the message says; 5xx: the service's side, or a site or model it waited for.
   */
  status: number;
}

const entry = (
  type: ErrorEntry["type"],
  rest: Omit<ErrorEntry, "type" | "name" | "code">,
): ErrorEntry => ({ type, name: type.name, code: type.code, ...rest });

export const ERROR_REGISTRY: readonly ErrorEntry[] = [
  entry(ServiceError, {
    status: 500,
    when: "The base class of every library error; thrown itself for failures no subclass names (a closed page, an action Playwright refuses, a closed client).",
    whatToDo:
      "Read the message: it names the call and the reason. `instanceof ServiceError` catches every library error.",
  }),
  entry(ServiceValidationError, {
    status: 400,
    when: "A public input failed its schema: client options, a call's options, an Action, agent config, a job definition or request.",
    whatToDo:
      "Each line names the field (`→ at Client options.localBrowserLaunchOptions.viewport.width`) and what was expected; fix that value.",
    fields: ["where", "issues"],
  }),
  entry(ServiceNotInitializedError, {
    status: 500,
    when: "A method that needs the browser was called before `init()` resolved.",
    whatToDo: "`await client.init()` first.",
    fields: ["method"],
  }),
  entry(ServiceInitError, {
    status: 500,
    when: "`init()` could not launch or attach to the browser (no binary, a crash at start, an unreachable `cdpUrl`).",
    whatToDo:
      "The message says which; check `executablePath`/`CHROME_PATH`, `headless: false` without a display, or the `cdpUrl`. Nothing is left running.",
  }),
  entry(ServiceEnvironmentError, {
    status: 500,
    when: "The constructor: an `env` other than LOCAL/REMOTE/BROWSERBASE, a bad `WAYFARER_BROWSER_PROFILE`, or (REMOTE) a `WAYFARER_API_URL` that is not an http(s) URL without credentials.",
    whatToDo: 'Use `env: "LOCAL"` or `"REMOTE"`, or fix the variable the message names.',
  }),
  entry(MissingEnvironmentVariableError, {
    // On a service, a feature its operator did not set up: not implemented here, and asking
    // again will not change that (answered with x-should-retry: false).
    status: 501,
    when: "A variable a feature needs is not set: `WAYFARER_API_KEY` for REMOTE, a search backend for `useSearch` (a service without one answers 501).",
    whatToDo:
      "Set the variable the message names (see environment.md) or pass the matching option.",
    fields: ["variable", "purpose"],
  }),
  entry(BrowserbaseSessionNotFoundError, {
    status: 404,
    when: "The remote environment: `browserbaseSessionID` names a session the service does not have.",
    whatToDo: "It ended or never existed: omit `browserbaseSessionID` to start a new one.",
    fields: ["sessionId"],
  }),
  entry(MissingLLMConfigurationError, {
    status: 400,
    when: "The first model call (act, extract with an instruction, observe, agent) finds no model, or its provider's key or required option is missing.",
    whatToDo:
      'Pass `model: "provider/model"` with its key (option or environment variable), or `llmClient`; `missing` names what to set. On the service: name the model (`modelName` at `/start`, or the call\'s `options.model`) and send its key in `x-model-api-key`.',
    fields: ["missing", "provider"],
  }),
  entry(InvalidAISDKModelFormatError, {
    status: 400,
    when: "A model name is not of the form `provider/model` (and no `baseURL` makes it an OpenAI-compatible model).",
    whatToDo: 'Write it as `"openai/gpt-4.1-mini"`, or give `provider` in a model object.',
    fields: ["modelName"],
  }),
  entry(UnsupportedModelError, {
    status: 422,
    when: "The model cannot do what is asked: an agent mode it cannot run (cua needs a computer-use model), a provider prefix this release does not know, or a computer-use model asked for structured output.",
    whatToDo: "The message lists what is supported; pick one of those, or another mode.",
    fields: ["modelName", "supported"],
  }),
  entry(LLMResponseError, {
    status: 502,
    when: "The provider failed (after retries of 429/5xx) or answered something unusable (not the asked structure, refused).",
    whatToDo:
      "`status` carries the provider's HTTP status when there was one: 401/403 a key, 404 a model name, 429 a quota. Otherwise retry, or try a stronger model.",
    fields: ["operation", "status"],
  }),
  entry(ZodSchemaValidationError, {
    status: 422,
    when: "`extract(instruction, schema)`: the model's data does not match the schema.",
    whatToDo:
      "Make the instruction more specific, or loosen the schema (optional fields, wider types). `received` holds what came back.",
    fields: ["received", "issues"],
  }),
  entry(ServiceTimeoutError, {
    status: 504,
    when: "Any bounded wait ran out: a call's `timeout`, `domSettleTimeout`, a locator's wait, a tool's `toolTimeout`, the job's budget. On the service every such wait is the caller's deadline (504: a navigation's, an operation's, its locator's), but the browser's launch at `/start`, which the operator's launch timeout bounds (500).",
    whatToDo:
      "The message names what it waited for and the step it was in; raise that timeout, or find why the page never got there.",
    fields: ["method", "timeoutMs", "waitingFor", "steps"],
  }),
  entry(ServiceNavigationError, {
    status: 502,
    when: "`goto`, `reload`, `goBack` or `goForward` failed in the network (refused, name not resolved, certificate, …).",
    whatToDo:
      "The message says what Chromium's code means and what to check; `netError` is that code (`net::ERR_…`), `url` the address without credentials.",
    fields: ["method", "url", "netError"],
  }),
  entry(NavigationRefusedError, {
    status: 400,
    when: "A navigation was refused before the browser was asked: by the navigation policy (a scheme other than http(s)/about/data, a link-local or cloud-metadata host), by the job's egress guard (its page), or on the service by its egress rule (a loopback or private address).",
    whatToDo:
      "The message names what would let it through: on the service, `WAYFARER_ALLOW_HOSTS`; for the job, `egress.allowHosts` or `JOB_EGRESS=off`, and `runJob(job, { allow })` for schemes and link-local addresses. Otherwise the page tried to reach something it should not.",
    fields: ["url", "reason"],
  }),
  entry(TokenCapError, {
    status: 429,
    when: "A model call would have taken the client past its `tokenCap` (the job's: 200k by default); checked before every model call, from the tokens spent so far and the call's estimated prompt. The call was not made.",
    whatToDo:
      "Raise `tokenCap` (the client option, or `runJob`'s) if the work really needs more, or make the instructions narrower; a huge page costs at most `maxChunksPerCall` model calls per act, observe or extract.",
    fields: ["used", "cap"],
  }),
  entry(ServiceDomProcessError, {
    status: 500,
    when: "Capturing the page outline failed (the renderer crashed, the document kept being replaced).",
    whatToDo: "Let the page settle and try again; a crashed renderer needs a reload.",
  }),
  entry(ServiceEvalError, {
    status: 500,
    when: "JavaScript run in the page threw: `page.evaluate`, or the outline's own code on a hostile page.",
    whatToDo:
      "The message carries the script's error; fix the script, or report the page if it is the outline's.",
  }),
  entry(XPathResolutionError, {
    status: 400,
    when: "A selector (an XPath from observe, `selector` of extract/observe) matches nothing in the page or its frames.",
    whatToDo:
      "The page changed since the selector was taken: observe again and use the current one.",
    fields: ["xpath"],
  }),
  entry(InvalidSelectorError, {
    status: 400,
    when: "A selector cannot be read at all: a broken XPath or CSS selector, nothing after `xpath=`, an empty part around `>>`. Thrown where XPathResolutionError would be (it is one), for act's Action, `selector` and `ignoreSelectors` of extract and observe, and the page API's locators.",
    whatToDo:
      "Fix the selector the message quotes: an XPath (`/html/body/…`, `xpath=…`) or CSS, with ` >> ` between frame hops. Observe gives selectors that work.",
    fields: ["xpath", "selector", "reason"],
  }),
  entry(PageNotFoundError, {
    status: 400,
    when: "A call names a page by `frameId` (on the wire) that is not open: it was closed, or it is another session's.",
    whatToDo:
      "Leave `frameId` out to use the active page, or pass one of an open page; the message lists the open ones.",
    fields: ["frameId"],
  }),
  entry(ServiceIframeError, {
    status: 400,
    when: "A selector's frame hop (`>>`) names an iframe that cannot be resolved.",
    whatToDo: "Check the frame part of the selector; the frame may not have loaded yet.",
    fields: ["frameSelector"],
  }),
  entry(ContentFrameNotFoundError, {
    status: 400,
    when: "A selector's frame hop lands on an element that is no `<iframe>`/`<frame>`, or whose document is gone.",
    whatToDo: "Check the frame part of the selector.",
    fields: ["selector"],
  }),
  entry(ContextError, {
    status: 400,
    when: "A context (a browser profile kept between sessions: `browserSettings.context`, the library's `context` option) cannot be used: its file does not open with this service's key for this project and id (copied from elsewhere, or changed), or the profile is past what a context keeps (50 MiB and 10,000 files once caches are left out).",
    whatToDo:
      "Create a new context and log in again; keep less in the browser's storage. The message says which.",
    fields: [],
  }),
  entry(ContextNotFoundError, {
    status: 404,
    when: "A call names a context that this project does not have: it never existed, was deleted, or another project's key created it.",
    whatToDo: "Create one with `POST /v1/contexts` and use it with the same key.",
    fields: ["contextId"],
  }),
  entry(ContextInUseError, {
    status: 409,
    when: "A `/start` names a context that a live session holds.",
    whatToDo: "End that session first, or start without the context.",
    fields: ["contextId"],
  }),
  entry(ServiceShadowRootMissingError, {
    status: 400,
    when: "A selector crosses a shadow root (`//`) at an element that has none.",
    whatToDo: "Check the selector; take a new one from observe.",
    fields: ["hostSelector"],
  }),
];

/**
 * The entry of an error's own class, else of its nearest registered ancestor (a class of the
 * service's own that extends one of these); undefined for errors that are not ours.
 */
export function errorEntryOfInstance(error: unknown): ErrorEntry | undefined {
  if (!(error instanceof ServiceError)) return undefined;
  for (
    let p = Object.getPrototypeOf(error);
    p && p !== Error.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    const found = ERROR_REGISTRY.find((e) => e.type.prototype === p);
    if (found) return found;
  }
  return undefined;
}

/** The entry of an error, by its class name; undefined for errors that are not ours. */
export function errorEntryOf(name: string): ErrorEntry | undefined {
  return ERROR_REGISTRY.find((e) => e.name === name);
}

/** The entry of an error, by its code (a newer peer may send a class name this one lacks). */
export function errorEntryByCode(code: string): ErrorEntry | undefined {
  return ERROR_REGISTRY.find((e) => e.code === code);
}
