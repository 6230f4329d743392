/**
 * A browser nobody calls is not held: a client keeps its MCP server running between chats, so
 * the host ends the browser after a time without calls, and the next call starts another and
 * tells the model that what it read is gone. A call under way is never cut by it.
 */
import { describe, expect, it } from "vitest";
import { readSettings } from "../../lib/mcp/settings.js";
import { idOfLine } from "../support/llm/modelServer.js";
import { commandLineIfLive, liveDescendants, stillLive } from "../support/processes.js";
import { useStaticServer } from "../support/staticServer.js";
import { within } from "../support/waiting.js";
import { textOf, useMcp } from "./inMemory.js";

const pages = useStaticServer();
const mcp = useMcp();

/** Chromium's main processes started by this test process (their children are theirs). */
const browsers = () =>
  liveDescendants(process.pid).filter((pid) =>
    commandLineIfLive(pid).some((arg) => arg.startsWith("--remote-debugging")),
  );

describe("the MCP host's idle end", () => {
  it("ends the browser after idleMs without a call; the next call starts another and says the old ids are gone", async () => {
    const before = new Set(browsers());
    const s = await mcp.connect({ idleMs: 1_500 });
    expect((await s.call("open", { url: pages.url("agent/counter.html") })).isError).toBeFalsy();
    const read = textOf(await s.call("read", { fresh: true }));
    const id = idOfLine(read, 'button "Add a cup"');
    expect(id).toBeDefined();
    const ours = browsers().filter((pid) => !before.has(pid));
    expect(ours.length).toBeGreaterThan(0);

    await within(
      15_000,
      "the idle end's log line",
      (async () => {
        while (!s.lines.some((l) => l.message.includes("without calls"))) {
          await new Promise((r) => setTimeout(r, 100));
        }
      })(),
    );
    expect(await stillLive(ours, 5_000)).toEqual([]);

    // The id read on the ended browser's page is refused, and the model is told why.
    const clicked = await s.call("click", { id });
    expect(textOf(clicked)).toContain("A new browser was started");
    expect((await s.call("open", { url: pages.url("agent/counter.html") })).isError).toBeFalsy();
    expect(textOf(await s.call("read", { fresh: true }))).toContain("Add a cup");
  });

  it("never ends the browser under a call that outlasts idleMs", async () => {
    const s = await mcp.connect({ idleMs: 1_000 });
    expect((await s.call("open", { url: pages.url("agent/counter.html") })).isError).toBeFalsy();
    // One call longer than the idle time: a page that answers after 2.5 s.
    const [waited] = await Promise.all([
      s.call("open", { url: pages.url("__slow?ms=2500") }),
      new Promise((r) => setTimeout(r, 1_200)),
    ]);
    expect(s.lines.some((l) => l.message.includes("without calls"))).toBe(false);
    expect(textOf(waited)).not.toContain("A new browser was started");
  });

  it("is 10 minutes unless set; 0 keeps the browser; anything between 1 ms and a minute is refused, naming the setting", () => {
    const idleOf = (argv: string[], env: Record<string, string> = {}) => {
      const settings = readSettings(argv, env);
      return "help" in settings ? undefined : settings.idleMs;
    };
    expect(idleOf([])).toBe(600_000);
    expect(idleOf([], { WAYFARER_MCP_IDLE_MS: "0" })).toBe(0);
    expect(idleOf(["--idle-ms", "120000"], { WAYFARER_MCP_IDLE_MS: "0" })).toBe(120_000);
    expect(() => idleOf(["--idle-ms", "5"])).toThrow(/--idle-ms[\s\S]*0 \(never\) or 60000/);
    expect(() => idleOf([], { WAYFARER_MCP_IDLE_MS: "soon" })).toThrow(/WAYFARER_MCP_IDLE_MS/);
  });
});
