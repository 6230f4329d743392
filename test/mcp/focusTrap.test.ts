/**
 * A variable's value reaches only a document of its origins, at the moment it goes in. Page E
 * (one site) frames L's login (another site) and takes the focus back whenever its own field
 * loses it, or all the time; keys sent after a check of L's field went to E's field whole. Now
 * the value is put into L's field by L's own document, in the task that checks the field holds
 * the focus: E's field receives nothing, ever. L moving its own focus on every character,
 * re-rendering the field after each one, or keeping it in a shadow root: the value lands in the
 * field or typing stops and says so, and nothing goes anywhere else.
 */
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { idOfLine } from "../support/llm/modelServer.js";
import { useStaticServer } from "../support/staticServer.js";
import { onPage, textOf, useMcp } from "./inMemory.js";
import { ENTRY, useBrowserEnv } from "./stdioProcess.js";

const server = useStaticServer();
const mcp = useMcp();
const PASSWORD = "hunter2-correct-horse";
const browserEnv = useBrowserEnv();

/** An MCP session whose %password% belongs to L (127.0.0.1), on E (localhost) framing L. */
async function onTrap(query: string, field = 'textbox "Password"') {
  const session = await mcp.connect({
    variables: { password: { value: PASSWORD, origins: [server.origin] } },
  });
  let outline = textOf(
    await session.call("open", { url: `${server.otherSite}/secrets/trap.html?${query}` }),
  );
  for (let i = 0; i < 50 && !idOfLine(outline, field); i++) {
    await new Promise((r) => setTimeout(r, 50));
    outline = textOf(await session.call("read", { fresh: true }));
  }
  const id = idOfLine(outline, field);
  expect(id, outline).toBeTruthy();
  const values = () =>
    onPage(session.host, async (page: Page) => {
      const login = page.frames().find((f) => f.url().includes("/secrets/login.html"))!;
      return {
        cap: await page.locator("#cap").inputValue(),
        pw: await login.locator("#pw").inputValue(),
        other: await login.locator("#other").inputValue(),
        deep: await login.locator("#deep").inputValue(),
        keys: await login.locator("#keys").textContent(),
      };
    });
  return { ...session, id: id!, values };
}

describe("a variable typed into a frame whose parent takes the focus back", () => {
  for (const steal of ["blur", "always"]) {
    it(`fill, type and fill_form put it into L's field only (E takes the focus: ${steal})`, async () => {
      for (const [tool, args] of [
        ["fill", (id: string) => ({ id, value: "%password%" })],
        ["type", (id: string) => ({ id, text: "%password%" })],
        ["fill_form", (id: string) => ({ fields: [{ id, value: "%password%" }] })],
      ] as const) {
        const trap = await onTrap(`steal=${steal}`);
        const answer = await trap.call(tool, args(trap.id));
        const after = await trap.values();
        // E's field never holds any of it; L's holds all of it, or typing stopped and said so.
        expect(after.cap, tool).toBe("");
        if (answer.isError) {
          expect(textOf(answer), tool).toMatch(
            /The focus left the field .*while %password% was typed/,
          );
          expect(PASSWORD.startsWith(after.pw), tool).toBe(true);
        } else {
          expect(after.pw, `${tool}: ${textOf(answer)}`).toBe(PASSWORD);
        }
        expect(textOf(answer)).not.toContain(PASSWORD);
        // No key events: nothing a key listener anywhere could read.
        expect(after.keys, tool).toBe("");
      }
    });
  }

  it("the page moving its own focus on every character: fill lands whole, type stops after one and says so", async () => {
    const filled = await onTrap("steal=none&hop");
    const fill = await filled.call("fill", { id: filled.id, value: "%password%" });
    expect(fill.isError, textOf(fill)).toBeFalsy();
    expect((await filled.values()).pw).toBe(PASSWORD);

    const typed = await onTrap("steal=none&hop");
    const type = await typed.call("type", { id: typed.id, text: "%password%" });
    expect(type.isError).toBe(true);
    expect(textOf(type)).toContain(
      `The focus left the field after 1 of ${PASSWORD.length} characters while %password% was typed (the page moved it): stopped, and nothing more was typed.`,
    );
    const after = await typed.values();
    expect(after.pw).toBe(PASSWORD[0]);
    expect(after.other).toBe("");
  });

  it("a field that re-renders after every character gets the whole value, in order", async () => {
    const trap = await onTrap("steal=none&rerender");
    const type = await trap.call("type", { id: trap.id, text: "%password%" });
    expect(type.isError, textOf(type)).toBeFalsy();
    expect((await trap.values()).pw).toBe(PASSWORD);
  });

  it("a field in a shadow root, inside the frame: filled there and nowhere else", async () => {
    const trap = await onTrap("steal=blur", 'textbox "Deep password"');
    const fill = await trap.call("fill", { id: trap.id, value: "%password%" });
    expect(fill.isError, textOf(fill)).toBeFalsy();
    const after = await trap.values();
    expect(after.deep).toBe(PASSWORD);
    expect(after.cap).toBe("");
    expect(after.pw).toBe("");
  });

  it("npm run mcp over stdio: fill on the framed field puts the value there, E's field and the answer get nothing", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [ENTRY],
      env: {
        ...browserEnv,
        WAYFARER_MCP_VAR_PASSWORD: PASSWORD,
        WAYFARER_MCP_ORIGINS_PASSWORD: server.origin,
      },
      cwd: tmpdir(),
      stderr: "pipe",
    });
    const client = new Client({ name: "focus-trap", version: "1.0.0" });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    try {
      let outline = textOf(await call("open", { url: `${server.otherSite}/secrets/trap.html` }));
      for (let i = 0; i < 50 && !idOfLine(outline, 'textbox "Password"'); i++) {
        outline = textOf(await call("read", { fresh: true }));
      }
      const filled = await call("fill", {
        id: idOfLine(outline, 'textbox "Password"'),
        value: "%PASSWORD%",
      });
      expect(filled.isError, textOf(filled)).toBeFalsy();
      expect(textOf(filled)).not.toContain(PASSWORD);
      // What E's field holds, as the outline shows it: nothing of the value.
      const cap = idOfLine(textOf(filled), 'textbox "Notes"');
      expect(cap).toBeTruthy();
      expect(textOf(filled)).not.toMatch(/textbox "Notes"[^\n]*hunter2/);
    } finally {
      await client.close();
    }
  }, 60_000);
});
