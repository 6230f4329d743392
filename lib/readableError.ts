/**
 * One place that turns a raw error into one readable message. Playwright's text comes with ANSI
 * colour codes, a "Call log:" block and Chromium's `net::ERR_*` codes; what we surface (library
 * errors, the job's answer, its webhook) says in words what failed and what to do. The raw text
 * is for debug log lines (`rawDetail`), never for the message.
 */
import { type NetFailure, ServiceError, ServiceNavigationError } from "./errors.js";

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

type Words = Omit<NetFailure, "code">;

const CERTIFICATE: Words = {
  reason: "the site's TLS certificate was not accepted",
  advice:
    "Fix the site's certificate, or for a site you trust pass localBrowserLaunchOptions.ignoreHTTPSErrors: true",
};

/** Chromium's network error codes (without `net::ERR_`), in words. */
const NET_ERRORS: Record<string, Words> = {
  CONNECTION_REFUSED: {
    reason: "the connection was refused",
    advice: "Nothing listens at that address and port: check the URL and that the server is up",
  },
  NAME_NOT_RESOLVED: {
    reason: "the host name did not resolve",
    advice: "Check the host name in the URL, and that this machine can reach a DNS server",
  },
  CONNECTION_RESET: {
    reason: "the connection was reset",
    advice:
      "The server or something on the way dropped it: check that the server is healthy and try again",
  },
  CONNECTION_CLOSED: {
    reason: "the server closed the connection",
    advice: "Check that the server is healthy and try again",
  },
  EMPTY_RESPONSE: {
    reason: "the server closed the connection without answering",
    advice: "Check that the server is healthy and that the URL's port serves HTTP",
  },
  TIMED_OUT: {
    reason: "the connection timed out",
    advice: "Check that the server is up and reachable from here (firewall, proxy)",
  },
  CONNECTION_TIMED_OUT: {
    reason: "the connection timed out",
    advice: "Check that the server is up and reachable from here (firewall, proxy)",
  },
  ADDRESS_UNREACHABLE: {
    reason: "the address is unreachable",
    advice: "There is no route to that host: check the URL and this machine's network",
  },
  INTERNET_DISCONNECTED: {
    reason: "this machine has no network connection",
    advice: "Connect the machine to a network (or configure a proxy) and try again",
  },
  ABORTED: {
    reason: "the browser aborted the load",
    advice:
      "Another navigation replaced it, or the URL serves a download instead of a page: check the URL",
  },
  TOO_MANY_REDIRECTS: {
    reason: "the page redirected too many times",
    advice: "The site's redirects go round in a loop: check the URL and what the site expects",
  },
  BLOCKED_BY_CLIENT: {
    reason: "the browser blocked the request",
    advice: "A navigation policy or request filter refused it: check where the URL redirects to",
  },
  UNSAFE_PORT: {
    reason: "the browser refuses to connect to that port",
    advice: "Chromium never connects to that port: serve the site on another one",
  },
  SSL_PROTOCOL_ERROR: {
    reason: "the TLS handshake failed",
    advice:
      "Check that the URL's scheme matches the server (https:// on a plain-HTTP port fails so)",
  },
  PROXY_CONNECTION_FAILED: {
    reason: "the proxy could not be reached",
    advice: "Check localBrowserLaunchOptions.proxy and that the proxy is up",
  },
  CERT_AUTHORITY_INVALID: {
    reason: "the site's TLS certificate is not signed by a trusted authority",
    advice: CERTIFICATE.advice,
  },
  CERT_DATE_INVALID: {
    reason: "the site's TLS certificate has expired or is not yet valid",
    advice: CERTIFICATE.advice,
  },
  CERT_COMMON_NAME_INVALID: {
    reason: "the site's TLS certificate is for another host name",
    advice: CERTIFICATE.advice,
  },
};

/** Words for one of Chromium's codes (`net::ERR_…` or just its name); unknown ones keep the code. */
export function netFailure(code: string): NetFailure {
  const name = code.replace(/^(?:net::)?ERR_/, "");
  const words = NET_ERRORS[name] ??
    (name.startsWith("CERT_") ? CERTIFICATE : undefined) ?? {
      reason: "the browser's request failed",
      advice: "Check the URL and that the site is reachable from this machine",
    };
  return { code: `net::ERR_${name}`, ...words };
}

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
