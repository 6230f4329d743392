import { describe, expect, it } from "vitest";
import * as errors from "../lib/errors.js";

const REFERENCE_CLASSES = [
  "ServiceError",
  "ZodSchemaValidationError",
  "ServiceDomProcessError",
  "ServiceEvalError",
  "ServiceIframeError",
  "ContentFrameNotFoundError",
  "XPathResolutionError",
  "ServiceShadowRootMissingError",
  "LLMResponseError",
  "MissingLLMConfigurationError",
  "UnsupportedModelError",
  "InvalidAISDKModelFormatError",
  "ServiceInitError",
  "ServiceNotInitializedError",
  "BrowserbaseSessionNotFoundError",
  "MissingEnvironmentVariableError",
  "ServiceEnvironmentError",
];

/** One instance of each class, built with arguments of the kind its callers pass. */
const samples: Record<string, () => Error> = {
  ServiceError: () => new errors.ServiceError("something failed in the library"),
  ZodSchemaValidationError: () =>
    new errors.ZodSchemaValidationError({}, [{ path: ["price"], message: "expected number" }]),
  ServiceDomProcessError: () => new errors.ServiceDomProcessError("node vanished"),
  ServiceEvalError: () => new errors.ServiceEvalError("ReferenceError: x is not defined"),
  ServiceIframeError: () => new errors.ServiceIframeError("iframe#pay", "it detached"),
  ContentFrameNotFoundError: () => new errors.ContentFrameNotFoundError("/html/body/div"),
  XPathResolutionError: () => new errors.XPathResolutionError("/html/body/x"),
  ServiceShadowRootMissingError: () => new errors.ServiceShadowRootMissingError("/html/body/x"),
  LLMResponseError: () => new errors.LLMResponseError("act", "no element id in the answer"),
  MissingLLMConfigurationError: () => new errors.MissingLLMConfigurationError(),
  UnsupportedModelError: () => new errors.UnsupportedModelError("foo/bar", ["openai/gpt-4.1"]),
  InvalidAISDKModelFormatError: () => new errors.InvalidAISDKModelFormatError("gpt-4.1"),
  ServiceInitError: () =>
    new errors.ServiceInitError("launch failed", { cause: new Error("spawn ENOENT") }),
  ServiceNotInitializedError: () => new errors.ServiceNotInitializedError("act"),
  BrowserbaseSessionNotFoundError: () => new errors.BrowserbaseSessionNotFoundError("sess_1"),
  MissingEnvironmentVariableError: () =>
    new errors.MissingEnvironmentVariableError("WAYFARER_API_KEY", "REMOTE"),
  ServiceEnvironmentError: () => new errors.ServiceEnvironmentError("bad env"),
};

/** A piece of each sample's arguments that its message must repeat. */
const SAMPLE_DETAIL: Record<string, string> = {
  ServiceError: "something failed",
  ZodSchemaValidationError: "expected number",
  ServiceDomProcessError: "node vanished",
  ServiceEvalError: "x is not defined",
  ServiceIframeError: "iframe#pay",
  ContentFrameNotFoundError: "/html/body/div",
  XPathResolutionError: "/html/body/x",
  ServiceShadowRootMissingError: "/html/body/x",
  LLMResponseError: "no element id",
  MissingLLMConfigurationError: "llmClient",
  UnsupportedModelError: "foo/bar",
  InvalidAISDKModelFormatError: "gpt-4.1",
  ServiceInitError: "launch failed",
  ServiceNotInitializedError: "act()",
  BrowserbaseSessionNotFoundError: "sess_1",
  MissingEnvironmentVariableError: "WAYFARER_API_KEY",
  ServiceEnvironmentError: "bad env",
};

describe("errors", () => {
  it.each(REFERENCE_CLASSES)("%s exists, extends ServiceError and carries its own name", (name) => {
    const error = samples[name]!();
    expect(error).toBeInstanceOf(errors.ServiceError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.constructor.name).toBe(name);
    // The message carries what the caller passed: the failing thing is named, not just the class.
    expect(error.message).toContain(SAMPLE_DETAIL[name]!);
  });

  it("keeps the cause and says what to do next", () => {
    const error = samples.ServiceInitError!();
    expect(error.cause).toBeInstanceOf(Error);
    expect(new errors.ServiceNotInitializedError("act").message).toContain("await client.init()");
    expect(samples.XPathResolutionError!().message).toContain("Take a new snapshot");
    expect(samples.ZodSchemaValidationError!().message).toContain("✖ expected number → at price");
  });
});
