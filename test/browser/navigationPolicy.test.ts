import { describe, expect, it } from "vitest";
import { checkNavigation, NavigationRefusedError } from "../../lib/browser/navigationPolicy.js";
import { ServiceError } from "../../lib/index.js";

describe("navigation policy", () => {
  it.each([
    "http://127.0.0.1:8080/a",
    "https://example.test/",
    "about:blank",
    "data:text/html,<p>x</p>",
  ])("allows %s", (url) => {
    expect(checkNavigation(url).href).toBeTruthy();
  });

  it.each([
    ["file:///etc/passwd", "file: scheme"],
    ["chrome://settings", "chrome: scheme"],
    ["devtools://devtools/bundled/inspector.html", "devtools: scheme"],
    ["javascript:alert(1)", "javascript: scheme"],
    ["http://169.254.169.254/latest/meta-data/", "metadata"],
    ["http://[fd00:ec2::254]/latest/", "metadata"],
    ["http://[fe80::1]/", "link-local"],
    ["http://[::ffff:169.254.169.254]/", "link-local"],
    ["http://metadata.google.internal/computeMetadata/v1/", "metadata"],
    ["not a url", "not an absolute URL"],
  ])("refuses %s", (url, reason) => {
    const attempt = () => checkNavigation(url);
    expect(attempt).toThrow(NavigationRefusedError);
    expect(attempt).toThrow(reason);
    expect(attempt).toThrow(ServiceError);
  });

  it("allows what the caller explicitly allows", () => {
    expect(checkNavigation("file:///tmp/page.html", { schemes: ["file:"] }).protocol).toBe("file:");
    expect(checkNavigation("http://169.254.1.1/", { linkLocal: true }).hostname).toBe(
      "169.254.1.1",
    );
  });
});
