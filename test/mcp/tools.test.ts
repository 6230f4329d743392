/**
 * The MCP tools that need no model, through the official SDK's client (in-process transport),
 * on a real Chromium and the fixture pages: reading the page (its [id]s, the one-line answer to
 * an outline the model has, fresh, parts), acting by id, a stale id refused, tabs, screenshots,
 * and errors answered as tool errors the model reads, the server going on after each.
 */

import { describe, expect, it } from "vitest";
import { UNCHANGED_OUTLINE } from "../../lib/agent/pageOutline.js";
import { egressWorkerPid } from "../../lib/browser/egressHost.js";
import { idOfLine } from "../support/llm/modelServer.js";
import { liveDescendants } from "../support/processes.js";
import { useStaticServer } from "../support/staticServer.js";
import { onPage, textOf, useMcp } from "./inMemory.js";

const server = useStaticServer();
const mcp = useMcp();

const PAGE_TOOLS = [
  "open",
  "back",
  "read",
  "click",
  "fill",
  "type",
  "select",
  "press",
  "hover",
  "scroll",
  "fill_form",
  "screenshot",
  "tabs",
];

describe("MCP tools without a model", () => {
  it("lists the page tools with described inputs, and listing them launches no browser", async () => {
    const { client } = await mcp.connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(PAGE_TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      const properties = (tool.inputSchema.properties ?? {}) as Record<
        string,
        { description?: string }
      >;
      for (const [field, schema] of Object.entries(properties)) {
        expect(schema.description, `${tool.name}.${field}`).toBeTruthy();
      }
    }
    expect(tools.find((t) => t.name === "read")!.annotations).toMatchObject({
      readOnlyHint: true,
      openWorldHint: true,
    });
    // No browser (the egress guard's worker of an earlier file's service may live on).
    expect(liveDescendants(process.pid).filter((pid) => pid !== egressWorkerPid())).toEqual([]);
  });

  it("reads the page with ids, answers an outline the model has in one line, and reads it whole when fresh", async () => {
    const { call } = await mcp.connect();
    const opened = textOf(await call("open", { url: server.url("agent/counter.html") }));
    expect(opened).toContain(`Opened ${server.url("agent/counter.html")} (HTTP 200)`);
    expect(opened).toMatch(/\[\d+\] button "Add a cup"/);

    const again = await call("read");
    expect(again.isError).toBeFalsy();
    expect(textOf(again)).toContain(UNCHANGED_OUTLINE);
    expect(textOf(again)).toContain("fresh: true");

    const fresh = textOf(await call("read", { fresh: true }));
    expect(fresh).toMatch(/^URL: http:\/\/127\.0\.0\.1:\d+\/agent\/counter\.html\n/);
    expect(fresh).toMatch(/^0 cups$/m);
  });

  it("clicks by id with no model, and answers with the page after it", async () => {
    const { call, host } = await mcp.connect();
    const page = textOf(await call("open", { url: server.url("agent/counter.html") }));
    const add = idOfLine(page, 'button "Add a cup"')!;
    const first = await call("click", { id: add });
    expect(first.isError).toBeFalsy();
    expect(textOf(first)).toContain('Done: click on button "Add a cup".');
    expect(textOf(first)).toMatch(/^1 cups$/m);
    // An id given as a number works too: models write them either way.
    expect(textOf(await call("click", { id: Number(add) }))).toMatch(/^2 cups$/m);
    // Calls sent at once run one after the other, each on the page the one before left.
    const both = await Promise.all([call("click", { id: add }), call("click", { id: add })]);
    expect(both.map((r) => r.isError ?? false)).toEqual([false, false]);
    expect(textOf(both[1]!)).toMatch(/^4 cups$/m);
    await call("hover", { id: add });
    expect(await onPage(host, (p) => p.locator("#count").textContent())).toBe("4 cups");
  });

  it("fills fields and presses Enter by id: the form is submitted with what was typed", async () => {
    const { call, host } = await mcp.connect();
    const page = textOf(await call("open", { url: server.url("agent/signup.html") }));
    await call("fill", { id: idOfLine(page, 'textbox "Email"'), value: "ada@example.com" });
    await call("type", { id: idOfLine(page, 'textbox "Name"'), text: "Ada" });
    const pressed = await call("press", { id: idOfLine(page, 'textbox "Name"'), key: "Enter" });
    expect(pressed.isError).toBeFalsy();
    expect(textOf(pressed)).toMatch(/^Welcome, Ada$/m);
    expect(
      await onPage(host, (p) => p.evaluate(() => (window as { received?: unknown }).received)),
    ).toEqual({
      email: "ada@example.com",
      password: "",
      name: "Ada",
    });
  });

  it("refuses an id whose element changed behind its back, does nothing, and says to read again", async () => {
    const { call, host } = await mcp.connect();
    const page = textOf(await call("open", { url: server.url("agent/counter.html") }));
    const add = idOfLine(page, 'button "Add a cup"')!;
    // The page puts a tip at the top by itself: every button moves one place down.
    await onPage(host, (p) => p.locator("#tip").click());
    const stale = await call("click", { id: add });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(
      /^StaleIdError: \[\d+\] is no longer the element the outline showed \(button "Add a cup"; now button "Dismiss tip" is there\): nothing was done\. The page changed: read it again with the read tool/,
    );
    expect(
      await onPage(host, (p) => p.evaluate(() => (window as { dismissed?: boolean }).dismissed)),
    ).toBeUndefined();
    expect(textOf(await call("click", { id: "999" }))).toContain(
      "[999] is not an id of the latest outline",
    );
    // Read again: the new ids work.
    const now = textOf(await call("read"));
    const done = await call("click", { id: idOfLine(now, 'button "Add a cup"') });
    expect(textOf(done)).toMatch(/^1 cups$/m);
  });

  it("lists, switches and closes tabs; a tab a click opened is the current one", async () => {
    const { call } = await mcp.connect();
    const page = textOf(await call("open", { url: server.url("popup.html") }));
    const opened = textOf(await call("click", { id: idOfLine(page, 'link "New tab"') }));
    expect(opened).toContain("second.html");
    const list = textOf(await call("tabs", { action: "list" }));
    expect(list).toMatch(
      /^Tabs:\n1\. Popup opener — .*popup\.html\n2\. .*second\.html \(current\)$/,
    );
    const switched = textOf(await call("tabs", { action: "switch", index: 1 }));
    expect(switched).toMatch(/Switched to tab 1\..*\n1\. .*popup\.html \(current\)/);
    // The ids read on the other tab name nothing here: the next read shows this one whole.
    expect(textOf(await call("read"))).toContain('link "New tab"');
    const closed = textOf(await call("tabs", { action: "close", index: 2 }));
    expect(closed).toMatch(/Closed tab 2\. .*\n1\. .*popup\.html \(current\)$/);
    const last = await call("tabs", { action: "close", index: 1 });
    expect(last.isError).toBe(true);
    expect(textOf(last)).toContain("that is the only tab");
    expect(textOf(await call("tabs", { action: "switch", index: 5 }))).toContain(
      "there is no tab 5",
    );
  });

  it("answers a screenshot as an image block", async () => {
    const { call } = await mcp.connect();
    await call("open", { url: server.url("agent/counter.html") });
    const shot = await call("screenshot");
    expect(shot.isError).toBeFalsy();
    expect(shot.content[0]).toEqual({
      type: "text",
      text: `Screenshot of ${server.url("agent/counter.html")}`,
    });
    const image = shot.content[1] as { type: string; data: string; mimeType: string };
    expect(image.type).toBe("image");
    expect(image.mimeType).toBe("image/png");
    expect(Buffer.from(image.data, "base64").subarray(1, 4).toString()).toBe("PNG");
  });

  it("reads a long outline in parts, and scrolls", async () => {
    const { call, host } = await mcp.connect({ options: { outlineTokenBudget: 300 } });
    const first = textOf(await call("open", { url: server.url("agent/long.html") }));
    const parts = Number(first.match(/\(part 1 of (\d+), the part in view/)![1]);
    expect(parts).toBeGreaterThan(2);
    const second = textOf(await call("read", { part: 2 }));
    expect(second).toContain(`(part 2 of ${parts}; ask for another by its number)`);
    const none = await call("read", { part: parts + 1 });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toContain(
      `the page's outline has ${parts} parts; there is no part ${parts + 1}`,
    );
    // Another part comes from the same capture while the page is unchanged, and from a new
    // one once it changed: the last part then shows what was added at the end.
    expect(textOf(await call("read", { part: 3 }))).toContain(`(part 3 of ${parts}`);
    expect(textOf(await call("read", { part: 2 }))).toBe(second);
    const last = textOf(await call("read", { part: parts }));
    expect(last).not.toContain("Added after the read");
    await onPage(host, (p) =>
      p.evaluate(() => {
        const added = document.createElement("p");
        added.textContent = "Added after the read";
        document.body.append(added);
      }),
    );
    expect(textOf(await call("read", { part: parts }))).toContain("Added after the read");
    const scrolled = textOf(await call("scroll", { direction: "down", screens: 3 }));
    expect(scrolled).toMatch(/^Scrolled down; the page is at \d+% of its height\.\nURL: /);
    expect(scrolled).toMatch(/\(part [2-9]\d* of \d+, the part in view/);
  });

  it("starts a new browser when its browser ended, and says so once", async () => {
    const { call, host } = await mcp.connect();
    await call("open", { url: server.url("agent/counter.html") });
    await onPage(host, (p) => p.context().browser()!.close());
    const after = await call("open", { url: server.url("agent/signup.html") });
    expect(after.isError).toBeFalsy();
    expect(textOf(after)).toMatch(/^A new browser was started \(the one before had ended\)/);
    expect(textOf(after)).toContain('textbox "Email"');
    expect(textOf(await call("read", { fresh: true }))).not.toContain("A new browser");
  });

  it("answers errors as tool errors the model reads, and goes on", async () => {
    const { call, client } = await mcp.connect();
    const refused = await call("open", { url: "file:///etc/passwd" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^NavigationRefusedError: Refused to navigate to file:\/\/\/etc\/passwd/,
    );
    const invalid = await call("click", {});
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain("Invalid arguments for tool click");
    const noScroll = await call("scroll", { id: "3" });
    expect(textOf(noScroll)).toContain("give id and percent together");
    const noOutline = await call("click", { id: "1" });
    expect(textOf(noOutline)).toContain("there is no outline to take [1] from");
    const unknown = await client.callTool({ name: "agent", arguments: { task: "x" } });
    expect(unknown.isError).toBe(true);
    // After all of that, the browser still answers.
    expect(textOf(await call("open", { url: server.url("agent/counter.html") }))).toContain(
      "Add a cup",
    );
    expect(textOf(await call("back"))).toMatch(/^Back on about:blank|^Nothing to go back to/);
  });
});
