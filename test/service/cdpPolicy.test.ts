/**
 * The CDP policy, command by command: what the two real clients send passes unchanged, download
 * behaviours are pinned to the session's folder, and every way out of the browser (local
 * schemes in any spelling, proxies, the host's processes and devices) is refused
 * with a message naming the command. No browser: the proxy's own tests drive a real one. The
 * file rule, on real files and links, is in cdpPolicyFiles.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgeCdpCommand } from "../../lib/service/cdpPolicy.js";
import { expectPassed, expectRefused, judge, scope } from "../support/cdpVerdicts.js";

/** What Playwright's connectOverCDP and the Stagehand v3 client send, as they send it. */
const CLIENT_COMMANDS: [string, unknown][] = [
  ["Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }],
  ["Target.setDiscoverTargets", { discover: true }],
  ["Target.attachToBrowserTarget", {}],
  ["Target.attachToTarget", { targetId: "T1", flatten: true }],
  ["Target.createBrowserContext", { disposeOnDetach: true }],
  ["Target.createTarget", { url: "about:blank", browserContextId: "C1" }],
  ["Target.createTarget", { url: "about:blank" }],
  ["Target.activateTarget", { targetId: "T1" }],
  ["Target.closeTarget", { targetId: "T1" }],
  ["Target.disposeBrowserContext", { browserContextId: "C1" }],
  ["Browser.getVersion", undefined],
  ["Browser.grantPermissions", { permissions: ["geolocation"], origin: "https://a.test" }],
  ["Browser.close", undefined],
  ["Page.enable", undefined],
  ["Page.navigate", { url: "https://a.test/x?y#z", referrer: "", frameId: "F1" }],
  ["Page.navigate", { url: "http://127.0.0.1:8080/", referrerPolicy: "unsafeUrl" }],
  ["Page.navigate", { url: "data:text/html,<p>hi</p>" }],
  ["Page.navigateToHistoryEntry", { entryId: 3 }],
  ["Page.reload", {}],
  ["Page.setDocumentContent", { frameId: "F1", html: "<p>hi</p>" }],
  ["Page.addScriptToEvaluateOnNewDocument", { source: "1", worldName: "w" }],
  ["Page.createIsolatedWorld", { frameId: "F1", worldName: "w", grantUniveralAccess: true }],
  ["Page.setLifecycleEventsEnabled", { enabled: true }],
  ["Page.setInterceptFileChooserDialog", { enabled: true }],
  ["Page.captureScreenshot", { format: "png", captureBeyondViewport: true }],
  ["Page.printToPDF", { transferMode: "ReturnAsStream" }],
  ["Page.startScreencast", { format: "jpeg", quality: 90 }],
  ["Runtime.enable", undefined],
  ["Runtime.evaluate", { expression: "location.href", returnByValue: true }],
  ["Runtime.callFunctionOn", { functionDeclaration: "() => 1", objectId: "O1" }],
  ["Runtime.runIfWaitingForDebugger", undefined],
  ["DOM.getDocument", { depth: -1, pierce: true }],
  ["DOM.setFileInputFiles", { objectId: "O1", files: [] }],
  ["Accessibility.getFullAXTree", { frameId: "F1" }],
  ["Input.dispatchMouseEvent", { type: "mousePressed", x: 1, y: 2, button: "left" }],
  ["Input.insertText", { text: "hello" }],
  [
    "Input.dispatchDragEvent",
    { type: "drop", x: 1, y: 2, data: { items: [], dragOperationsMask: 1 } },
  ],
  [
    "Emulation.setDeviceMetricsOverride",
    { width: 1, height: 1, deviceScaleFactor: 1, mobile: false },
  ],
  ["Network.enable", {}],
  ["Network.setExtraHTTPHeaders", { headers: { "x-a": "b" } }],
  [
    "Network.loadNetworkResource",
    {
      url: "https://a.test/s.js.map",
      frameId: "F1",
      options: { disableCache: false, includeCredentials: true },
    },
  ],
  ["Fetch.enable", { patterns: [{ urlPattern: "*" }], handleAuthRequests: true }],
  ["Fetch.continueRequest", { requestId: "R1" }],
  ["Fetch.continueRequest", { requestId: "R1", headers: [{ name: "a", value: "b" }] }],
  ["Fetch.continueRequest", { requestId: "R1", url: "https://b.test/", method: "POST" }],
  [
    "Fetch.fulfillRequest",
    {
      requestId: "R1",
      responseCode: 200,
      responseHeaders: [{ name: "content-type", value: "text/html" }],
      body: "aGk=",
    },
  ],
  [
    "Fetch.fulfillRequest",
    {
      requestId: "R1",
      responseCode: 302,
      responseHeaders: [{ name: "Location", value: "/elsewhere" }],
    },
  ],
  [
    "Fetch.fulfillRequest",
    {
      requestId: "R1",
      responseCode: 302,
      responseHeaders: [{ name: "location", value: "https://b.test/" }],
    },
  ],
  ["Fetch.failRequest", { requestId: "R1", errorReason: "Failed" }],
  ["Tracing.start", { transferMode: "ReturnAsStream", categories: "devtools.timeline,v8.execute" }],
  ["Tracing.end", undefined],
  ["IO.read", { handle: "H1", size: 1 << 20 }],
  ["IO.close", { handle: "H1" }],
  ["Storage.getCookies", { browserContextId: "C1" }],
  ["HeapProfiler.collectGarbage", undefined],
  ["Profiler.startPreciseCoverage", { callCount: true, detailed: true }],
  ["WebMCP.enable", undefined],
];

// Scanned from the installed clients: the CDP commands their code names.
function commandsNamedIn(files: string[]): Set<string> {
  const require = createRequire(import.meta.url);
  const protocol = join(dirname(require.resolve("devtools-protocol/package.json")), "json");
  const known = new Set<string>();
  for (const name of ["browser_protocol.json", "js_protocol.json"]) {
    const { domains } = JSON.parse(readFileSync(join(protocol, name), "utf8")) as {
      domains: { domain: string; commands?: { name: string }[] }[];
    };
    for (const d of domains) for (const c of d.commands ?? []) known.add(`${d.domain}.${c.name}`);
  }
  const named = new Set<string>();
  for (const file of files) {
    for (const [, m] of readFileSync(file, "utf8").matchAll(
      /["'`]([A-Z][A-Za-z]+\.[a-z][A-Za-z]+)["'`]/g,
    )) {
      if (known.has(m!)) named.add(m!);
    }
  }
  return named;
}

describe("the CDP policy", () => {
  it.each(CLIENT_COMMANDS)("passes %s as the clients send it", (method, params) => {
    expectPassed(method, params);
  });

  it("passes every command the installed clients name, but those judged on their params", () => {
    const require = createRequire(import.meta.url);
    const v3 = join(dirname(require.resolve("@browserbasehq/stagehand")), "lib", "v3");
    const files = [
      join(dirname(require.resolve("playwright-core")), "lib", "coreBundle.js"),
      ...readdirSync(v3, { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".js"))
        .map((f) => join(v3, f)),
    ];
    const named = commandsNamedIn(files);
    expect(named.size).toBeGreaterThan(100);
    // Judged on params: their real params are in CLIENT_COMMANDS or the download table below.
    const judged = new Set([
      "Page.navigate",
      "Target.createTarget",
      "Network.loadNetworkResource",
      "DOM.setFileInputFiles",
      "Browser.setDownloadBehavior",
    ]);
    // Only Playwright's WebKit pages send it (WebKit's protocol has no flat sessions).
    const webkitOnly = new Set(["Target.sendMessageToTarget"]);
    const refused = [...named].filter(
      (m) => !judged.has(m) && !webkitOnly.has(m) && !judge(m, {}).allow,
    );
    expect(refused).toEqual([]);
  });

  it.each<[string, unknown, unknown]>([
    [
      "Browser.setDownloadBehavior",
      {
        behavior: "allowAndName",
        browserContextId: "C1",
        downloadPath: "/tmp/playwright-artifacts-x",
        eventsEnabled: true,
      },
      {
        behavior: "allowAndName",
        browserContextId: "C1",
        downloadPath: scope.downloadsDir,
        eventsEnabled: true,
      },
    ],
    [
      "Browser.setDownloadBehavior",
      { behavior: "allow", downloadPath: "downloads", eventsEnabled: true },
      { behavior: "allow", downloadPath: scope.downloadsDir, eventsEnabled: true },
    ],
    [
      "Browser.setDownloadBehavior",
      { behavior: "allow", eventsEnabled: true },
      { behavior: "allow", downloadPath: scope.downloadsDir, eventsEnabled: true },
    ],
    [
      "Browser.setDownloadBehavior",
      { behavior: "allow", downloadPath: 7 },
      { behavior: "allow", downloadPath: scope.downloadsDir },
    ],
    [
      "Browser.setDownloadBehavior",
      { behavior: "default" },
      { behavior: "allow", downloadPath: scope.downloadsDir },
    ],
    [
      "Browser.setDownloadBehavior",
      { behavior: "deny", downloadPath: "/etc/cron.d" },
      { behavior: "deny" },
    ],
    [
      "Page.setDownloadBehavior",
      { behavior: "allow", downloadPath: "/root/.ssh" },
      { behavior: "allow", downloadPath: scope.downloadsDir },
    ],
    [
      "Page.setDownloadBehavior",
      { behavior: "default" },
      { behavior: "allow", downloadPath: scope.downloadsDir },
    ],
  ])("pins %s %j to the session's downloads folder", (method, params, sent) => {
    expect(judge(method, params)).toEqual({ allow: true, params: sent });
  });

  it("passes a denial without a folder unchanged", () => {
    expectPassed("Browser.setDownloadBehavior", {
      behavior: "deny",
      browserContextId: "C1",
      eventsEnabled: true,
    });
    expectPassed("Page.setDownloadBehavior", { behavior: "deny" });
  });

  it.each<[string, unknown, RegExp]>([
    ["Browser.setDownloadBehavior", { behavior: "Allow" }, /params\.behavior: .*allowAndName/],
    ["Browser.setDownloadBehavior", { behavior: ["allow"] }, /params\.behavior/],
    ["Browser.setDownloadBehavior", {}, /params\.behavior/],
    ["Browser.setDownloadBehavior", undefined, /params: /],
    ["Browser.setDownloadBehavior", [{ behavior: "allow" }], /params: /],
    ["Page.setDownloadBehavior", { behavior: "allowAndName" }, /params\.behavior/],
  ])("refuses %s %j: the behaviour is not one it knows", (method, params, why) => {
    expectRefused(method, params, why);
  });

  it.each<[unknown, RegExp]>([
    [{ proxyServer: "direct://" }, /proxyServer is not allowed: .*egress guard/],
    [{ proxyServer: "http://127.0.0.1:9" }, /proxyServer/],
    [{ proxyServer: "" }, /proxyServer/],
    [{ disposeOnDetach: true, proxyBypassList: "<-loopback>" }, /proxyBypassList/],
    [{ originsWithUniversalNetworkAccess: ["https://a.test"] }, /same-origin policy/],
    ["direct://", /params: expected an object/],
  ])("refuses Target.createBrowserContext %j", (params, why) => {
    expectRefused("Target.createBrowserContext", params, why);
  });

  it("passes Target.createBrowserContext without params (null reads as none, as in Chromium)", () => {
    expectPassed("Target.createBrowserContext", undefined);
    expectPassed("Target.createBrowserContext", null);
  });

  it.each<[string, RegExp]>([
    ["Target.exposeDevToolsProtocol", /CDP channel of its own/],
    ["Target.sendMessageToTarget", /flatten: true/],
    ["Target.setRemoteLocations", /host and port of the caller's choosing/],
    ["Target.openDevTools", /DevTools window/],
    ["Browser.getBrowserCommandLine", /command line/],
    ["Browser.crash", /core dump/],
    ["Browser.crashGpuProcess", /core dump/],
    ["Page.crash", /core dump/],
    ["Memory.getBrowserSamplingProfile", /loaded modules/],
    ["Memory.getAllTimeSamplingProfile", /loaded modules/],
    ["Memory.getSamplingProfile", /loaded modules/],
    ["Page.addCompilationCache", /compiled code/],
    ["LayerTree.loadSnapshot", /Skia pictures/],
    ["SystemInfo.getProcessInfo", /describes the host/],
    ["SystemInfo.getInfo", /describes the host/],
    ["SystemInfo.anythingNew", /describes the host/],
    ["Extensions.loadUnpacked", /extensions from host folders/],
    ["PWA.install", /host's system/],
    ["Cast.startDesktopMirroring", /local network/],
    ["Tethering.bind", /listening port/],
    ["DeviceAccess.selectPrompt", /device of the host/],
  ])("refuses %s whatever its params", (method, why) => {
    for (const params of [undefined, {}, { targetId: "T1", port: 9 }])
      expectRefused(method, params, why);
  });

  it.each<[unknown, RegExp]>([
    [{ tracingBackend: "system" }, /"system" connects to the host's tracing service/],
    [{ tracingBackend: "System" }, /tracingBackend "System" is not allowed/],
    [{ perfettoConfig: "" }, /perfettoConfig is not allowed/],
    [{ tracingBackend: "chrome", perfettoConfig: "CgQIgAE=" }, /perfettoConfig/],
    [{ traceConfig: { recordMode: "echoToConsole" } }, /host's logs/],
    [{ options: "record-until-full, trace-to-console" }, /host's logs/],
    [{ traceConfig: { enableSystrace: true } }, /kernel/],
    [{ options: "enable-systrace" }, /kernel/],
    [{ tracingBackend: 1 }, /params\.tracingBackend/],
    [{ traceConfig: [] }, /params\.traceConfig/],
    [{ traceConfig: { enableSystrace: "yes" } }, /params\.traceConfig\.enableSystrace/],
  ])("refuses Tracing.start %j", (params, why) => {
    expectRefused("Tracing.start", params, why);
  });

  it("passes the browser's own tracing", () => {
    for (const params of [
      undefined,
      {},
      { tracingBackend: "chrome" },
      {
        tracingBackend: "auto",
        traceConfig: { recordMode: "recordContinuously", includedCategories: ["*"] },
      },
    ]) {
      expectPassed("Tracing.start", params);
    }
  });

  it("refuses a field the policy reads when it has the wrong type", () => {
    const cases: [string, unknown, RegExp][] = [
      ["Page.navigate", null, /params: /],
      ["Page.navigate", [], /params: /],
      ["Page.navigate", "file:///etc/passwd", /params: /],
      ["Page.navigate", { url: ["https://a.test/"] }, /params\.url: /],
      ["Page.navigate", { url: { toString: "file:///" } }, /params\.url: /],
      ["Target.createTarget", { url: 1 }, /params\.url: /],
      ["Fetch.continueRequest", { requestId: "R1", url: null }, /params\.url: /],
      [
        "Fetch.fulfillRequest",
        { responseHeaders: { Location: "file:///" } },
        /params\.responseHeaders: /,
      ],
      [
        "Fetch.fulfillRequest",
        { responseHeaders: [{ name: "Location", value: 1 }] },
        /params\.responseHeaders\.0\.value: /,
      ],
      ["Fetch.continueResponse", { binaryResponseHeaders: 1 }, /params\.binaryResponseHeaders: /],
      ["Network.continueInterceptedRequest", { rawResponse: {} }, /params\.rawResponse: /],
      ["Input.dispatchDragEvent", { data: "files" }, /params\.data: /],
    ];
    for (const [method, params, why] of cases) expectRefused(method, params, why);
  });

  it("never throws, whatever it is handed", () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error("boom");
        },
        has: () => {
          throw new Error("boom");
        },
        ownKeys: () => {
          throw new Error("boom");
        },
        getOwnPropertyDescriptor: () => {
          throw new Error("boom");
        },
      },
    );
    const huge = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    const odd = [
      undefined,
      null,
      0,
      -1,
      Number.NaN,
      "",
      "x".repeat(100_000),
      [],
      [1, 2],
      {},
      true,
      hostile,
      huge,
      { ...huge, url: "file:///etc/passwd" },
    ];
    const methods = [
      "Browser.setDownloadBehavior",
      "Page.setDownloadBehavior",
      "Target.createBrowserContext",
      "Page.navigate",
      "Target.createTarget",
      "Network.loadNetworkResource",
      "Fetch.continueRequest",
      "Fetch.fulfillRequest",
      "Fetch.continueResponse",
      "Network.continueInterceptedRequest",
      "DOM.setFileInputFiles",
      "Input.dispatchDragEvent",
      "Tracing.start",
      "Runtime.evaluate",
      "",
      ".",
      "Page.",
      "x".repeat(10_000),
    ];
    for (const method of methods) {
      for (const params of odd) {
        const verdict = judge(method, params);
        expect(typeof verdict.allow).toBe("boolean");
      }
    }
    expectRefused("Page.navigate", hostile, /could not be judged/);
    expectRefused("Page.navigate", { ...huge, url: "file:///etc/passwd" }, /file: URL/);
    expect(judgeCdpCommand(undefined as never, {}, scope)).toEqual({
      allow: false,
      message: "Wayfarer refuses a command without a method name",
    });
  });

  it("passes what Chromium would not run: its method names are exact", () => {
    // 'page.navigate' and 'Page.navigate ' are "wasn't found" in Chromium, whatever their params.
    expectPassed("page.navigate", { url: "file:///etc/passwd" });
    expectPassed("Page.navigate ", { url: "file:///etc/passwd" });
  });
});
