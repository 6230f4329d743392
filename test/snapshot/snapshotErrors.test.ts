import { describe, expect, it } from "vitest";
import {
  ServiceDomProcessError,
  ServiceEvalError,
  ServiceIframeError,
  ServiceShadowRootMissingError,
  XPathResolutionError,
} from "../../lib/index.js";
import {
  missingScope,
  PageScriptError,
  toSnapshotError,
} from "../../lib/snapshot/snapshotErrors.js";

describe("capture errors", () => {
  it("names a scope's failure by what the resolver saw", () => {
    const noRoot = missingScope(
      "/html/body/x-card//button",
      "xpath=/html/body/x-card has no shadow root",
    );
    expect(noRoot).toBeInstanceOf(ServiceShadowRootMissingError);
    expect(noRoot.message).toContain("xpath=/html/body/x-card");
    const noDocument = missingScope("#f >> button", "frame #f has no document yet");
    expect(noDocument).toBeInstanceOf(ServiceIframeError);
    expect(noDocument.message).toContain("#f");
    const none = missingScope("//aside", undefined);
    expect(none).toBeInstanceOf(XPathResolutionError);
    expect(none.message).toContain("//aside");
  });

  it("tells the outline's own page code failing from other failures, keeping the cause", () => {
    const inPage = new PageScriptError("TypeError: x is not a function");
    const evalError = toSnapshotError(inPage);
    expect(evalError).toBeInstanceOf(ServiceEvalError);
    expect((evalError as Error).cause).toBe(inPage);
    const other = new Error("Protocol error (DOM.describeNode): Could not find node");
    const domError = toSnapshotError(other);
    expect(domError).toBeInstanceOf(ServiceDomProcessError);
    expect((domError as Error).message).toContain("Could not find node");
    const already = new XPathResolutionError("//x");
    expect(toSnapshotError(already)).toBe(already);
  });
});
