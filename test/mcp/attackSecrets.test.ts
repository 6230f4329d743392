/**
 * A hostile page against the MCP server's variables: the value is never typed outside its
 * origins however the page gets the field there (a frame of another site on the variable's own
 * page, an HTTP redirect from its own origin), through every tool that types (fill, type,
 * fill_form, press on an id), and a page's words asking for it get its name only.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { useStaticServer } from "../support/staticServer.js";
import { type Connected, onPage, textOf, useMcp } from "./inMemory.js";

const server = useStaticServer();
const mcp = useMcp();
const model = useModelServer();
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-mcp-attack-secrets-123456" };

const PASSWORD = "hunter2-correct-horse";

/** Redirects every request to the fixture server's other site (same path). */
let redirector: Server;
let redirectorUrl = "";
beforeAll(async () => {
  redirector = createServer((req, res) => {
    res.writeHead(302, { location: `${server.otherSite}${req.url}` }).end();
  });
  await new Promise<void>((done) => redirector.listen(0, "127.0.0.1", done));
  redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => redirector.close(() => done())));

async function connect(origins: string[], withModel = false) {
  const session = await mcp.connect({
    variables: { password: { value: PASSWORD, origins } },
    ...(withModel ? { options: { model: MODEL } } : {}),
  });
  const answers: CallToolResult[] = [];
  const call: Connected["call"] = async (name, args) => {
    const answer = await session.call(name, args);
    answers.push(answer);
    return answer;
  };
  const expectNoValue = () =>
    expect(JSON.stringify(answers) + JSON.stringify(session.lines)).not.toContain(PASSWORD);
  return { ...session, call, expectNoValue };
}

/** Every way a tool can type `%password%` into the field with this id. */
const TYPING = (id: string) =>
  [
    ["fill", { id, value: "%password%" }],
    ["type", { id, text: "%password%" }],
    ["fill_form", { fields: [{ id, value: "%password%" }] }],
    ["press", { id, key: "%password%" }],
  ] as const;

describe("an MCP variable against a page that brings another origin's field", () => {
  it("inside a frame of another site on its own origin's page: refused by every typing tool", async () => {
    const { call, host, expectNoValue } = await connect([server.origin]);
    let page = textOf(await call("open", { url: server.url("secrets/framed.html") }));
    for (let i = 0; i < 50 && !page.includes('textbox "Token"'); i++)
      page = textOf(await call("read", { fresh: true }));
    const token = idOfLine(page, 'textbox "Token"');
    expect(token).toBeTruthy();
    for (const [tool, args] of TYPING(token!)) {
      const refused = await call(tool, args);
      expect(refused.isError, tool).toBe(true);
      expect(textOf(refused), tool).toContain(
        `%password% may be typed only on ${server.origin}; the field is on ${server.otherSite}. Nothing was typed.`,
      );
    }
    const typed = await onPage(host, async (p) => {
      const frame = p.frames().find((f) => f.url().includes("collect.html"))!;
      return frame.locator("#token").inputValue();
    });
    expect(typed).toBe("");
    expectNoValue();
  });

  it("after an HTTP redirect from its own origin to another: refused by every typing tool", async () => {
    const { call, host, expectNoValue } = await connect([redirectorUrl]);
    const page = textOf(await call("open", { url: `${redirectorUrl}/secrets/collect.html` }));
    expect(await onPage(host, async (p) => new URL(p.url()).origin)).toBe(server.otherSite);
    const token = idOfLine(page, 'textbox "Token"')!;
    for (const [tool, args] of TYPING(token)) {
      const refused = await call(tool, args);
      expect(refused.isError, tool).toBe(true);
      expect(textOf(refused), tool).toContain(
        `%password% may be typed only on ${redirectorUrl}; the field is on ${server.otherSite}. Nothing was typed.`,
      );
    }
    expect(await onPage(host, (p) => p.locator("#token").inputValue())).toBe("");
    expectNoValue();
  });

  it("press with a variable for its key, with no id, presses no value anywhere", async () => {
    const { call, host, expectNoValue } = await connect([server.origin]);
    const page = textOf(await call("open", { url: server.url("secrets/collect.html") }));
    await call("click", { id: idOfLine(page, 'textbox "Token"') });
    const pressed = await call("press", { key: "%password%" });
    expect(pressed.isError).toBe(true);
    expect(textOf(pressed)).toContain("%password%");
    expect(await onPage(host, (p) => p.locator("#token").inputValue())).toBe("");
    expectNoValue();
  });

  it("the model's act, on its own origin's page, cannot type it into a frame of another site there", async () => {
    // The act model fills the framed Token field with the variable.
    model.use(
      openaiResponses((request) => {
        const id = idOfLine(promptOf(request), 'textbox "Token"');
        return {
          elements: id
            ? [{ elementId: id, description: "Token", method: "fill", arguments: ["%password%"] }]
            : [],
        };
      }),
    );
    const { call, host, expectNoValue } = await connect([server.origin], true);
    let page = textOf(await call("open", { url: server.url("secrets/framed.html") }));
    for (let i = 0; i < 50 && !page.includes('textbox "Token"'); i++)
      page = textOf(await call("read", { fresh: true }));
    const refused = await call("act", { action: "type %password% into the Token field" });
    expect(refused.isError).toBe(true);
    // Its own origin once, though both the run's start and the variable's name it.
    expect(textOf(refused)).toMatch(
      new RegExp(
        `^Failed: %password% may be typed only on ${server.origin.replace(/[.]/g, "\\.")}; the field is on `,
      ),
    );
    expect(textOf(refused)).toContain(`the field is on ${server.otherSite}. Nothing was typed.`);
    const typed = await onPage(host, async (p) => {
      const frame = p.frames().find((f) => f.url().includes("collect.html"))!;
      return frame.locator("#token").inputValue();
    });
    expect(typed).toBe("");
    expect(JSON.stringify(model.requests().map((r) => r.body))).not.toContain(PASSWORD);
    expectNoValue();
  });
});
