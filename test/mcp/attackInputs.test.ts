/**
 * Hostile inputs to the MCP tools, from the calling model or the page: every one answers a
 * readable tool error or a bounded answer within the tool's time, and the server goes on.
 */
import { describe, expect, it } from "vitest";
import { idOfLine } from "../support/llm/modelServer.js";
import { useStaticServer } from "../support/staticServer.js";
import { type Connected, onPage, textOf, useMcp } from "./inMemory.js";

const server = useStaticServer();
const mcp = useMcp();

/** The server still opens and reads a page: nothing before broke it. */
async function stillServes(call: Connected["call"]) {
  const opened = await call("open", { url: server.url("agent/counter.html") });
  expect(opened.isError).toBeFalsy();
  expect(textOf(await call("read", { fresh: true }))).toContain("Add a cup");
}

describe("MCP tools against hostile inputs", () => {
  it("open refuses what is no http(s) page, however spelt, and the browser goes nowhere", async () => {
    const { call, host } = await mcp.connect();
    await call("open", { url: server.url("basic.html") });
    for (const url of [
      "FILE:///etc/passwd",
      " file:/etc/passwd",
      "file://localhost/etc/passwd",
      "\\\\host\\share\\x",
      "chrome://version",
      "chrome://settings",
      "view-source:http://127.0.0.1/",
      "javascript:document.title='pwned'",
      "blob:http://127.0.0.1/x",
      "devtools://devtools/bundled/inspector.html",
    ]) {
      const answer = await call("open", { url });
      expect(answer.isError, url).toBe(true);
      expect(textOf(answer), url).toMatch(/^\w+Error: /);
      expect(await onPage(host, async (p) => p.url()), url).toBe(server.url("basic.html"));
      expect(await onPage(host, (p) => p.title()), url).not.toBe("pwned");
    }
    // about: is let through (about:blank), but never reaches a page of the browser's own.
    for (const url of ["about:version", "about:settings", "about:inspect"]) {
      expect(textOf(await call("open", { url })), url).toContain(`Opened ${url}`);
      expect(
        await onPage(host, (p) => p.evaluate(() => document.body?.textContent ?? "")),
        url,
      ).toBe("");
      expect(await onPage(host, (p) => p.title()), url).toBe("");
    }
    await stillServes(call);
  });

  it("numbers out of range and unknown fields: refused naming the field, or bounded", async () => {
    const { call } = await mcp.connect();
    await call("open", { url: server.url("agent/counter.html") });
    for (const [tool, args, field] of [
      ["scroll", { screens: -1 }, "screens"],
      ["scroll", { screens: 1e308 }, "screens"],
      ["scroll", { id: "1", percent: -5 }, "percent"],
      ["scroll", { id: "1", percent: Number.MAX_SAFE_INTEGER }, "percent"],
      ["tabs", { action: "switch", index: -1 }, "index"],
      ["tabs", { action: "close", index: 0 }, "index"],
      ["read", { part: -1 }, "part"],
      ["read", { part: 0.5 }, "part"],
    ] as const) {
      const answer = await call(tool, args);
      expect(answer.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(answer)).toContain(field);
    }
    const far = await call("tabs", { action: "switch", index: 1000 });
    expect(textOf(far)).toContain("there is no tab 1000: there is one tab");
    const huge = await call("tabs", { action: "switch", index: 1e9 });
    expect(textOf(huge)).toContain("expected number to be <=1000 at index");
    const beyond = await call("read", { part: 1e9 });
    expect(textOf(beyond).length).toBeLessThan(20_000);
    const extra = await call("read", { fresh: true, constructor: { prototype: 1 }, __proto__: 1 });
    expect(textOf(extra)).toContain("Add a cup");
    await stillServes(call);
  });

  it("10 MB to type: a readable error within the tool's time, and the next call is answered", async () => {
    const { call } = await mcp.connect({ toolTimeoutMs: 3_000 });
    const page = textOf(await call("open", { url: server.url("agent/signup.html") }));
    const id = idOfLine(page, 'textbox "Name"');
    const started = Date.now();
    const answer = await call("type", { id, text: "x".repeat(10 * 1024 * 1024) });
    expect(answer.isError).toBe(true);
    // The tool's time, then at most the settle the session gives a tool past its time.
    expect(Date.now() - started).toBeLessThan(3_000 + 5_000 + 5_000);
    expect(textOf(answer).length).toBeLessThan(2_000);
    await stillServes(call);
  });

  /** A call's answer and how long it took. */
  const timed = async <T>(work: Promise<T>) => {
    const started = Date.now();
    const answer = await work;
    return { answer, ms: Date.now() - started };
  };
  // The tool's time, then the settle a session gives a tool past it, and slack for a busy host.
  const TOOL_MS = 5_000;
  const BOUND_MS = TOOL_MS + 5_000 + 5_000;

  it("a page that spams alerts, confirms and prompts: every call answers within its time", async () => {
    const { call } = await mcp.connect({ toolTimeoutMs: TOOL_MS });
    const page = textOf(await call("open", { url: server.url("attack/dialogs.html") }));
    expect(page).toContain("A page that asks and asks");
    const clicked = await timed(call("click", { id: idOfLine(page, 'button "Ask"') }));
    expect(clicked.ms).toBeLessThan(BOUND_MS);
    expect(textOf(clicked.answer).length).toBeLessThan(20_000);
    const read = await timed(call("read", { fresh: true }));
    expect(read.ms).toBeLessThan(BOUND_MS);
    expect(textOf(read.answer)).toContain("asks and asks");
    const away = await timed(call("open", { url: server.url("agent/counter.html") }));
    expect(away.ms).toBeLessThan(BOUND_MS);
    expect(textOf(away.answer)).toMatch(/Add a cup|^ServiceTimeoutError: open: 5000 ms passed/);
  });

  it("a page that opens a thousand windows: each call answers within its time, bounded", async () => {
    const { call, host } = await mcp.connect({ toolTimeoutMs: TOOL_MS });
    const page = textOf(await call("open", { url: server.url("attack/popups.html") }));
    const clicked = await timed(call("click", { id: idOfLine(page, 'button "Open them"') }));
    expect(clicked.ms).toBeLessThan(BOUND_MS);
    expect(textOf(clicked.answer).length).toBeLessThan(50_000);
    const tabs = await timed(call("tabs", { action: "list" }));
    expect(tabs.ms).toBeLessThan(BOUND_MS);
    expect(textOf(tabs.answer).length).toBeLessThan(200_000);
    expect(await onPage(host, async (p) => p.context().pages().length)).toBeGreaterThan(1);
  });
});

describe("MCP local browser's page cap (WAYFARER_MCP_MAX_PAGES)", () => {
  it("a page opening 30 windows keeps 10 open: the rest closed as they open, told in the log, and open goes on", async () => {
    const { call, host, lines } = await mcp.connect({ toolTimeoutMs: 10_000 });
    const page = textOf(await call("open", { url: `${server.url("attack/popups.html")}?n=30` }));
    const clicked = await call("click", { id: idOfLine(page, 'button "Open them"') });
    expect(textOf(clicked).length).toBeLessThan(50_000);
    // To the page: every window.open answered a window; those past the cap are closed ones.
    await expect
      .poll(
        () =>
          onPage(host, async (p) =>
            p
              .context()
              .pages()[0]!
              .evaluate(() => {
                const opened = (window as unknown as { popups: (Window | null)[] }).popups;
                return { all: opened.length, closed: opened.filter((w) => !w || w.closed).length };
              }),
          ),
        { timeout: 20_000 },
      )
      .toEqual({ all: 30, closed: 21 });
    expect(await onPage(host, async (p) => p.context().pages().length)).toBe(10);
    const closed = lines.filter((l) => l.message.startsWith("closed a new page"));
    expect(closed).toHaveLength(21);
    expect(closed[0]!.message).toBe(
      "closed a new page: 10 pages are open, the most this browser may have (WAYFARER_MCP_MAX_PAGES)",
    );
    // To the model: a tab list of the ten.
    const tabs = textOf(await call("tabs", { action: "list" }));
    expect(tabs).toMatch(/\n10\. /);
    expect(tabs).not.toMatch(/\n11\. /);
    await call("tabs", { action: "switch", index: 1 });
    await stillServes(call);
  });
});

describe("MCP session not trapped by a hostile page", () => {
  it("leaves a page that spams dialogs: the next open reaches the new page", async () => {
    const { call } = await mcp.connect({ toolTimeoutMs: 10_000 });
    await call("open", { url: server.url("attack/dialogs.html") });
    expect(textOf(await call("open", { url: server.url("agent/counter.html") }))).toContain(
      "Add a cup",
    );
  });
});

// Still open: the cap keeps 10 pages and Playwright never sees the rest, but the opener's own
// loop of 1,000 window.open runs for a minute or more (each new window made, let run and closed
// by the browser), and its tab and its popups (one renderer) answer nothing until it ends.
// Measured in the page (200 opens, p50 per window.open): 24.5 ms under the cap, 36.5 ms in plain
// Playwright with no cap. The time is Chromium's making of each window; only stopping the
// opener's script would end it. Terminating it from the hub was tried and raced with the next
// script in that renderer; crashing the renderer or closing the target would take the tab.
describe.skip("MCP session trapped by a hostile page (reported defects)", () => {
  it("after a page opened a thousand windows, open still reaches a page", async () => {
    const { call } = await mcp.connect({ toolTimeoutMs: 10_000 });
    const page = textOf(await call("open", { url: server.url("attack/popups.html") }));
    await call("click", { id: idOfLine(page, 'button "Open them"') });
    expect(textOf(await call("open", { url: server.url("agent/counter.html") }))).toContain(
      "Add a cup",
    );
  });
});
