/**
 * The status of a failure follows from its error's class: the service's own refusals, and every
 * library error by its registry entry. A caller's mistake is a 4xx, a deadline a 504, and 500 is
 * left for what the operator is to look at.
 */
import { describe, expect, it } from "vitest";
import { ERROR_REGISTRY } from "../../lib/errorRegistry.js";
import * as errors from "../../lib/errors.js";
import { statusOf } from "../../lib/service/answers.js";
import {
  OwnerUnreachable,
  ServiceFull,
  ServiceStopping,
  SessionBusyError,
  SessionGone,
  SessionNotFound,
} from "../../lib/service/serviceErrors.js";

/** The table docs/reference/errors.md shows, as the service answers it. */
const STATUS: Record<string, number> = {
  ServiceError: 500,
  ServiceValidationError: 400,
  ServiceNotInitializedError: 500,
  ServiceInitError: 500,
  ServiceEnvironmentError: 500,
  MissingEnvironmentVariableError: 501,
  BrowserbaseSessionNotFoundError: 404,
  ContextError: 400,
  ContextNotFoundError: 404,
  ContextInUseError: 409,
  MissingLLMConfigurationError: 400,
  InvalidAISDKModelFormatError: 400,
  UnsupportedModelError: 422,
  LLMResponseError: 502,
  ZodSchemaValidationError: 422,
  ServiceTimeoutError: 504,
  ServiceNavigationError: 502,
  NavigationRefusedError: 400,
  TokenCapError: 429,
  ServiceDomProcessError: 500,
  ServiceEvalError: 500,
  XPathResolutionError: 400,
  InvalidSelectorError: 400,
  PageNotFoundError: 400,
  ServiceIframeError: 400,
  ContentFrameNotFoundError: 400,
  ServiceShadowRootMissingError: 400,
};

describe("statusOf", () => {
  it("answers each library error with its class's status", () => {
    expect(Object.keys(STATUS).sort()).toEqual(ERROR_REGISTRY.map((e) => e.name).sort());
    for (const entry of ERROR_REGISTRY) {
      const error = Object.create(entry.type.prototype) as errors.ServiceError;
      expect(statusOf(error), entry.name).toBe(STATUS[entry.name]);
    }
    expect(statusOf(new errors.PageNotFoundError("F00"))).toBe(400);
    expect(statusOf(new errors.InvalidSelectorError("//a[", "its [ is not closed"))).toBe(400);
    expect(statusOf(new errors.UnsupportedModelError("openai/gpt-4.1", ["dom", "hybrid"]))).toBe(
      422,
    );
  });

  it("tells the caller's deadline (504) from the browser's launch, the operator's (500)", () => {
    expect(statusOf(new errors.ServiceTimeoutError("goto", 1_000, "the load event"))).toBe(504);
    expect(statusOf(new errors.ServiceTimeoutError("act", 30_000, "the action"))).toBe(504);
    expect(statusOf(new errors.ServiceTimeoutError("init", 30_000, "the browser"))).toBe(500);
    const playwright = new Error("page.goto: Timeout 1000ms exceeded.");
    playwright.name = "TimeoutError";
    expect(statusOf(playwright)).toBe(504);
  });

  it("answers a class of no entry by its nearest registered ancestor, anything else 500", () => {
    class StaleScope extends errors.XPathResolutionError {}
    expect(statusOf(new StaleScope("//aside"))).toBe(400);
    expect(statusOf(new Error("a bug"))).toBe(500);
    expect(statusOf("a string")).toBe(500);
    expect(statusOf(new RangeError("Maximum call stack size exceeded"))).toBe(500);
  });

  it("keeps the service's own refusals", () => {
    expect(statusOf(new SessionNotFound("x"))).toBe(404);
    expect(statusOf(new SessionBusyError("x"))).toBe(409);
    expect(statusOf(new ServiceFull("x"))).toBe(503);
    expect(statusOf(new ServiceStopping("x"))).toBe(503);
    expect(statusOf(new SessionGone("x"))).toBe(410);
    expect(statusOf(new OwnerUnreachable("x"))).toBe(502);
  });
});
