/**
 * The CDP policy on URLs: navigations, new pages, resource loads and rewritten requests reach
 * only http:, https:, data:, blob: and about:blank, judged on the scheme Chromium would read
 * (any case, white space and control characters around, tabs and newlines inside), and a
 * fulfilled or rewritten response cannot redirect to a local scheme.
 */
import { describe, it } from "vitest";
import { expectPassed, expectRefused } from "../support/cdpVerdicts.js";

/** What Playwright's connectOverCDP and the Stagehand v3 client send, as they send it. */
describe("the CDP policy on URLs", () => {
  const LOCAL_URLS = [
    "file:///etc/passwd",
    "FILE:///etc/passwd",
    "File:/etc/passwd",
    "file:/etc/passwd",
    "file:etc/passwd",
    "file://localhost/etc/passwd",
    "  file:///etc/passwd",
    "file:///etc/passwd  ",
    "\u0000file:///etc/passwd",
    "\u001ffile:///etc/passwd",
    "\tfi\nle:///etc/passwd",
    "fi\r\nle:///etc",
    "file:\\\\\\etc\\passwd",
    "file:%2F%2F%2Fetc%2Fpasswd",
    "chrome://version",
    "CHROME://settings",
    "chrome-untrusted://print",
    "devtools://devtools/bundled/inspector.html",
    "view-source:file:///etc/passwd",
    "view-source:https://a.test/",
    "filesystem:https://a.test/temporary/x",
    "filesystem:file:///x",
    "chrome-extension://abcdefghijklmnop/x.html",
    "javascript:alert(1)",
    " JavaScript:alert(1)",
    "about:version",
    "about:settings",
    "about:BLANK",
    "about://blank",
    "about:blank/../version",
    "blob:file:///x",
    "blob:chrome://version/x",
    "ftp://a.test/",
    "ws://a.test/",
    "C:\\Windows\\win.ini",
    "c:/windows/win.ini",
    "intent://x#Intent;end",
    "mailto:a@b.test",
    "localhost:8080/x",
  ];
  const PAGE_URLS = [
    "http://a.test/",
    "HTTPS://A.TEST/x",
    " https://a.test/ ",
    "http:/\\a.test/x",
    "data:text/html,hi",
    "DATA:text/plain;base64,aGk=",
    "blob:https://a.test/2f0c",
    "blob:null/2f0c",
    "about:blank",
    "about:blank#top",
    "about:blank?x",
    "about:srcdoc",
    "http://[::1]:8080/",
  ];
  const URL_COMMANDS: [string, (url: string) => unknown][] = [
    ["Page.navigate", (url) => ({ url, frameId: "F1" })],
    ["Target.createTarget", (url) => ({ url, browserContextId: "C1" })],
    ["Network.loadNetworkResource", (url) => ({ url, options: {} })],
    ["Fetch.continueRequest", (url) => ({ requestId: "R1", url })],
    ["Network.continueInterceptedRequest", (url) => ({ interceptionId: "I1", url })],
  ];

  it.each(URL_COMMANDS)("refuses %s to a local scheme in every spelling", (method, params) => {
    for (const url of LOCAL_URLS)
      expectRefused(
        method,
        params(url),
        /url .*(a .* URL; a session's browser opens only http:|not an absolute URL)/,
      );
  });

  it.each(URL_COMMANDS)("passes %s to the web", (method, params) => {
    for (const url of PAGE_URLS) expectPassed(method, params(url));
  });

  it("names the scheme it refused, as Chromium would read it", () => {
    expectRefused("Page.navigate", { url: " \tFI\nLE:///etc/passwd" }, /is a file: URL/);
    expectRefused(
      "Page.navigate",
      { url: "view-source:file:///etc/passwd" },
      /is a view-source: URL/,
    );
    expectRefused("Page.navigate", { url: "/etc/passwd" }, /is not an absolute URL/);
    expectRefused("Page.navigate", { url: "" }, /is not an absolute URL/);
    expectPassed("Target.createTarget", { url: "" }); // Chromium's about:blank
  });

  const binary = (...lines: string[]) => Buffer.from(lines.join("\0"), "latin1").toString("base64");
  const raw = (head: string) => Buffer.from(`${head}\r\n\r\nbody`, "latin1").toString("base64");

  it.each<[string, unknown]>([
    [
      "Fetch.fulfillRequest",
      {
        requestId: "R1",
        responseCode: 302,
        responseHeaders: [{ name: "Location", value: "file:///etc/passwd" }],
      },
    ],
    [
      "Fetch.fulfillRequest",
      {
        requestId: "R1",
        responseCode: 301,
        responseHeaders: [{ name: " LOCATION ", value: " chrome://version" }],
      },
    ],
    [
      "Fetch.fulfillRequest",
      {
        requestId: "R1",
        responseCode: 302,
        binaryResponseHeaders: binary("Content-Type: text/html", "location: view-source:file:///"),
      },
    ],
    [
      "Fetch.continueResponse",
      {
        requestId: "R1",
        responseCode: 302,
        responseHeaders: [{ name: "Location", value: "FILE:/etc/passwd" }],
      },
    ],
    [
      "Network.continueInterceptedRequest",
      {
        interceptionId: "I1",
        rawResponse: raw("HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd"),
      },
    ],
  ])("refuses %s redirecting to a local scheme", (method, params) => {
    expectRefused(
      method,
      params,
      /Location header to .* redirects to a (file|chrome|view-source): URL/,
    );
  });

  it("passes redirects to the web and bodies that only mention a location", () => {
    expectPassed("Fetch.fulfillRequest", {
      requestId: "R1",
      responseCode: 302,
      binaryResponseHeaders: binary("Location: https://a.test/"),
    });
    expectPassed("Network.continueInterceptedRequest", {
      interceptionId: "I1",
      rawResponse: raw("HTTP/1.1 302 Found\r\nLocation: /next"),
    });
    const body = Buffer.from("HTTP/1.1 200 OK\r\n\r\nLocation: file:///etc/passwd").toString(
      "base64",
    );
    expectPassed("Network.continueInterceptedRequest", { interceptionId: "I1", rawResponse: body });
  });
});
