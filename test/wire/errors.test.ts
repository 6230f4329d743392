/**
 * Errors cross a process boundary as `{name, code, message, …fields}` and come back as the same
 * class: every class of the registry, through a real JSON text.
 */
import { describe, expect, it } from "vitest";
import { fromWireError, toWireError } from "../../lib/api/errors.js";
import { ERROR_REGISTRY } from "../../lib/errorRegistry.js";
import * as errors from "../../lib/errors.js";

/** One instance of every public error class, as the library throws them. */
const samples: errors.ServiceError[] = [
  new errors.ServiceError("plain failure"),
  new errors.ServiceValidationError("act.options", [
    { path: ["timeout"], message: "expected a number" },
  ]),
  new errors.ServiceNotInitializedError("act"),
  new errors.ServiceInitError("no browser"),
  new errors.ServiceEnvironmentError("bad env"),
  new errors.MissingEnvironmentVariableError("WAYFARER_API_KEY", "the remote environment"),
  new errors.BrowserbaseSessionNotFoundError("s-1"),
  new errors.MissingLLMConfigurationError("OPENAI_API_KEY", "openai"),
  new errors.InvalidAISDKModelFormatError("gpt"),
  new errors.UnsupportedModelError("x/y", ["dom"]),
  new errors.LLMResponseError("act", "quota", { status: 429 }),
  new errors.ZodSchemaValidationError({ price: "a" }, [
    { path: ["price"], message: "expected number" },
  ]),
  new errors.ServiceTimeoutError("extract", 300, "the page outline", ["settle"]),
  new errors.ServiceNavigationError("goto", "http://u:p@127.0.0.1:9/", {
    code: "net::ERR_CONNECTION_REFUSED",
    reason: "the connection was refused",
    advice: "Check the URL",
  }),
  new errors.NavigationRefusedError("file:///etc/passwd", "the file: scheme is not allowed"),
  new errors.TokenCapError(250_000, 200_000),
  new errors.ServiceDomProcessError("the renderer crashed"),
  new errors.ServiceEvalError("ReferenceError: x is not defined"),
  new errors.XPathResolutionError("//div[9]"),
  new errors.InvalidSelectorError("//div[[", 'its "[" is not closed'),
  new errors.PageNotFoundError("8D3C1F", ["A1B2C3"]),
  new errors.ServiceIframeError("iframe#pay", "not loaded"),
  new errors.ContentFrameNotFoundError("div >> p"),
  new errors.ServiceShadowRootMissingError("//x-card"),
  new errors.ContextError("the context's file does not open with this service's key"),
  new errors.ContextNotFoundError("5a0f3c52-8d1e-4b8e-9d0a-3f6b1c2d4e5f"),
  new errors.ContextInUseError("5a0f3c52-8d1e-4b8e-9d0a-3f6b1c2d4e5f"),
];

const acrossTheWire = (error: unknown) =>
  fromWireError(JSON.parse(JSON.stringify(toWireError(error))) as unknown);

describe("errors on the wire", () => {
  it("has a sample of every registered class", () => {
    expect(samples.map((e) => e.name).sort()).toEqual(ERROR_REGISTRY.map((e) => e.name).sort());
  });

  it.each(samples.map((e) => [e.name, e] as const))(
    "%s comes back as the same class, code, message and fields",
    (_name, sent) => {
      const entry = ERROR_REGISTRY.find((e) => e.name === sent.name)!;
      const received = acrossTheWire(sent);
      expect(received).toBeInstanceOf(entry.type);
      expect(received).toBeInstanceOf(errors.ServiceError);
      expect(received).toBeInstanceOf(Error);
      expect(received.name).toBe(sent.name);
      expect(received.code).toBe(sent.code);
      expect(received.code).toBe(entry.code);
      expect(received.message).toBe(sent.message);
      for (const field of entry.fields ?? []) {
        expect((received as unknown as Record<string, unknown>)[field], field).toEqual(
          (sent as unknown as Record<string, unknown>)[field],
        );
      }
      expect(String(received.stack)).toContain(sent.message);
    },
  );

  it("carries what the wire form names, and nothing of the cause", () => {
    const wire = toWireError(
      new errors.ServiceTimeoutError("act", 5, "the action", [], { cause: new Error("inner") }),
    );
    expect(wire).toEqual({
      name: "ServiceTimeoutError",
      code: "TIMEOUT",
      message: "act: 5 ms passed waiting for the action",
      method: "act",
      timeoutMs: 5,
      waitingFor: "the action",
      steps: [],
    });
  });

  it("sends a foreign error as a ServiceError with its message", () => {
    const received = acrossTheWire(new TypeError("boom"));
    expect(received.constructor).toBe(errors.ServiceError);
    expect(received.code).toBe("SERVICE_ERROR");
    expect(received.message).toBe("boom");
  });

  it("rebuilds a class it knows by code when the name is new to it", () => {
    const received = fromWireError({
      name: "ServiceTimeoutErrorV2",
      code: "TIMEOUT",
      message: "m",
    });
    expect(received).toBeInstanceOf(errors.ServiceTimeoutError);
  });

  it("keeps an unknown error's name on a ServiceError, and says so for one that is no error", () => {
    const unknown = fromWireError({ name: "QuotaError", code: "QUOTA", message: "too many" });
    expect(unknown.constructor).toBe(errors.ServiceError);
    expect([unknown.name, unknown.message]).toEqual(["QuotaError", "too many"]);
    const garbage = fromWireError({ oops: true });
    expect(garbage.message).toMatch(/without a readable error: \{"oops":true\}/);
  });
});
