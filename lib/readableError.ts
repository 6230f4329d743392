/**
 * One place that turns a raw error into one readable message. Playwright's text comes with ANSI
 * colour codes, a "Call log:" block and Chromium's `net::ERR_*` codes; what we surface (library
 * errors, the job's answer, its webhook) says in words what failed and what to do. The raw text
 * is for debug log lines (`rawDetail`), never for the message.
 */
import { ServiceError, ServiceNavigationError } from "./errors.js";
import { netFailure } from "./netErrors.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: what is left of a broken sequence.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
/** Playwright's list of the steps it took, and everything after it. */
const CALL_LOG = /\s*Call log:[\s\S]*$/;
/** The same list inside a longer text: its heading and its indented lines. */
const CALL_LOG_BLOCK = /\s*Call log:(?:\n[ \t]+[^\n]*)*\n?/g;
const NET_CODE = /net::ERR_([A-Z0-9_]+)(?: at (\S+))?/;
/** Playwright's `page.goto: ` in front of its own message, and the `Error: ` it may add. */
const API_PREFIX = /^[a-zA-Z]+\.[a-zA-Z]+: (?:Error: )?/;
/** A line of a stack trace (a page script's error carries one). */
const STACK_LINE = /^\s+at \S.*$/gm;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "").replace(CONTROL, "");
}

/** The text before Playwright's "Call log:" block. */
export function withoutCallLog(text: string): string {
  return text.replace(CALL_LOG, "");
}

/** Lines joined into one: after a line's own punctuation a space, otherwise "; ". */
export function oneLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.reduce(
    (out, line) => (out ? `${out}${/[:.;,!?]$/.test(out) ? " " : "; "}${line}` : line),
    "",
  );
}

/** An error's message as one readable line: no escape codes, call log, stack or line breaks. */
export function readableMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return oneLine(withoutCallLog(stripAnsi(text)).replace(STACK_LINE, ""));
}

/** What a foreign error says went wrong, as one readable line without Playwright's method name. */
export function readableReason(error: unknown): string {
  return readableMessage(error).replace(API_PREFIX, "");
}

/**
 * The error a call of ours surfaces. Our own errors pass as they are (their messages are
 * written to be read), unless they quote Playwright's text, which is cleaned. A foreign one
 * (Playwright's, CDP's) becomes a ServiceError named after `method` with its text made
 * readable, and keeps the original, call log and all, as `cause`.
 */
export function readableError(method: string, error: unknown): unknown {
  if (error instanceof ServiceError) {
    // Ours, quoting Playwright (a capture's failure): the quote is made readable in place, in
    // the stack's first line too (loggers print stacks).
    if (error.message !== stripAnsi(error.message) || error.message.includes("Call log:")) {
      const before = `${error.name}: ${error.message}`;
      error.message = oneLine(stripAnsi(error.message).replace(CALL_LOG_BLOCK, ""));
      if (error.stack?.startsWith(before)) {
        error.stack = `${error.name}: ${error.message}${error.stack.slice(before.length)}`;
      }
    }
    return error;
  }
  if (!(error instanceof Error)) return error;
  return new ServiceError(`${method}: ${readableReason(error)}`, { cause: error });
}

/**
 * A failed call's error as its caller gets it (`wrap`, readableError by default); first, when
 * there is more to it than our own words (a foreign error, or ours with a cause), everything
 * it says goes to `debug`.
 */
export function surface(
  method: string,
  error: unknown,
  debug: (detail: string) => void,
  wrap: (error: unknown) => unknown = (e) => readableError(method, e),
): unknown {
  if (!(error instanceof ServiceError) || error.cause !== undefined) debug(rawDetail(error));
  return wrap(error);
}

/** Everything an error says, causes included, for a debug log line (escape codes removed). */
export function rawDetail(error: unknown, depth = 0): string {
  if (!(error instanceof Error)) return stripAnsi(String(error));
  const own = stripAnsi(`${error.name}: ${error.message}`);
  if (error.cause === undefined || depth >= 4) return own;
  return `${own}\ncaused by ${rawDetail(error.cause, depth + 1)}`;
}

/**
 * The error a failed navigation surfaces: Chromium's network errors become a
 * ServiceNavigationError in words, Playwright's other errors a ServiceError with its text made
 * readable; both keep the original as `cause`. Our own errors (timeouts included) pass unchanged.
 */
export function navigationError(method: string, url: string, error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof ServiceError) return error;
  if (error.name === "TimeoutError") return error;
  const text = stripAnsi(error.message);
  const net = NET_CODE.exec(withoutCallLog(text));
  if (net)
    return new ServiceNavigationError(method, net[2] ?? url, netFailure(net[1]!), { cause: error });
  return readableError(method, error);
}
