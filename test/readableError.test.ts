import { describe, expect, it } from "vitest";
import {
  ServiceDomProcessError,
  ServiceError,
  ServiceNavigationError,
  ServiceTimeoutError,
} from "../lib/errors.js";
import { netFailure } from "../lib/netErrors.js";
import {
  navigationError,
  rawDetail,
  readableError,
  readableMessage,
  readableReason,
  stripAnsi,
} from "../lib/readableError.js";

/** Playwright's text for a refused connection, as page.goto throws it (colours included). */
const PLAYWRIGHT_REFUSED =
  'page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/\nCall log:\n\u001b[2m  - navigating to "http://127.0.0.1:9/", waiting until "load"\u001b[22m\n';

describe("readable errors", () => {
  it("takes out escape codes, the call log and line breaks", () => {
    expect(
      stripAnsi("\u001b[31mred\u001b[39m and \u001b]8;;http://x\u0007link\u001b]8;;\u0007"),
    ).toBe("red and link");
    expect(readableMessage(new Error(PLAYWRIGHT_REFUSED))).toBe(
      "page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/",
    );
    expect(readableMessage(new Error("Invalid request body:\n  ✖ expected JSON\n  ✖ more"))).toBe(
      "Invalid request body: ✖ expected JSON; ✖ more",
    );
  });

  it("puts Chromium's codes in words with what to do, and keeps an unknown code", () => {
    const required = [
      "CONNECTION_REFUSED",
      "NAME_NOT_RESOLVED",
      "CONNECTION_RESET",
      "TIMED_OUT",
      "ADDRESS_UNREACHABLE",
      "CERT_AUTHORITY_INVALID",
      "CERT_WEAK_KEY",
      "ABORTED",
      "INTERNET_DISCONNECTED",
      "TOO_MANY_REDIRECTS",
    ];
    const generic = netFailure("net::ERR_SOMETHING_NEW");
    for (const name of required) {
      const failure = netFailure(`net::ERR_${name}`);
      expect(failure.code).toBe(`net::ERR_${name}`);
      expect(failure.reason, name).not.toBe(generic.reason);
      expect(failure.advice, name).toMatch(/^[A-Z]/);
    }
    expect(netFailure("ERR_CERT_DATE_INVALID").reason).toContain("expired");
    expect(generic).toMatchObject({
      code: "net::ERR_SOMETHING_NEW",
      reason: "the browser's request failed",
    });
  });

  it("turns a failed navigation into a ServiceNavigationError, the original as its cause", () => {
    const raw = new Error(PLAYWRIGHT_REFUSED);
    const error = navigationError("goto", "http://127.0.0.1:9/", raw) as ServiceNavigationError;
    expect(error).toBeInstanceOf(ServiceNavigationError);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.cause).toBe(raw);
    expect(error.netError).toBe("net::ERR_CONNECTION_REFUSED");
    expect(error.code).toBe("NAVIGATION_FAILED");
    expect(error.message).toBe(
      "goto: could not open http://127.0.0.1:9/: the connection was refused (net::ERR_CONNECTION_REFUSED). Nothing listens at that address and port: check the URL and that the server is up.",
    );
    // Anything else Playwright says is cleaned; our own errors pass as they are.
    const other = navigationError(
      "reload",
      "http://x.test/",
      new Error("page.reload: Navigation interrupted\nCall log:\n  - waiting"),
    ) as Error;
    expect(other).toBeInstanceOf(ServiceError);
    expect(other.message).toBe("reload: Navigation interrupted");
    const timeout = new ServiceTimeoutError("goto", 100, "the load event");
    expect(navigationError("goto", "http://x.test/", timeout)).toBe(timeout);
  });

  it("makes a foreign error a readable ServiceError named after the call; ours pass unchanged", () => {
    const raw = new Error(
      'elementHandle.fill: Error: Element is not an <input>\nCall log:\n\u001b[2m  - fill("x")\u001b[22m\n',
    );
    const error = readableError('deepLocator("#cart").fill', raw) as Error;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.message).toBe('deepLocator("#cart").fill: Element is not an <input>');
    expect(error.cause).toBe(raw);
    const script = new Error(
      "page.evaluate: TypeError: x is not a function\n    at eval (<anonymous>:1:1)",
    );
    expect(readableReason(script)).toBe("TypeError: x is not a function");
    const ours = new ServiceTimeoutError("act", 100, "the action");
    expect(readableError("act", ours)).toBe(ours);
    expect(ours.message).toBe("act: 100 ms passed waiting for the action");
  });

  it("cleans Playwright's text inside one of our errors (a capture's failure), keeping the error", () => {
    const inner = new Error(PLAYWRIGHT_REFUSED);
    const ours = new ServiceDomProcessError(inner.message, { cause: inner });
    expect(readableError("observe", ours)).toBe(ours);
    expect(ours.message).toBe(
      "Processing the page's DOM failed: page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/. Wait for the page to settle and try again.",
    );
    expect(ours.cause).toBe(inner);
  });

  it("keeps the whole text, causes included, for debug lines", () => {
    const error = navigationError("goto", "http://127.0.0.1:9/", new Error(PLAYWRIGHT_REFUSED));
    const detail = rawDetail(error);
    expect(detail).toContain("Call log:");
    expect(detail).toContain('navigating to "http://127.0.0.1:9/"');
    expect(detail).not.toContain("\u001b");
  });
});
