/**
 * Variables of an MCP server: set in its configuration, typed as `%name%` by the calling model,
 * never shown to it. Their values appear in no answer (outlines, a page that echoes them, tab
 * titles, errors) and no log line, and are typed only on the origins each names: another site,
 * even one a page's words led the model to, is refused, through the page tools and through the
 * model's act alike.
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { variablesFromEnv } from "../../lib/mcp/variables.js";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { useStaticServer } from "../support/staticServer.js";
import { type Connected, onPage, textOf, useMcp } from "./inMemory.js";

const server = useStaticServer();
const model = useModelServer();
const mcp = useMcp();

const PASSWORD = "hunter2-correct-horse";
const EMAIL = "ada.secret@example.com";
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-mcp-secrets-test-123456" };

/** The server's variables, both bound to the fixture server's own origin (127.0.0.1). */
const variables = () => ({
  password: { value: PASSWORD, origins: [server.origin] },
  email: { value: EMAIL, origins: [server.origin] },
});

/** A session whose every answer is kept, to look for the values in afterwards. */
async function connect(withModel = false) {
  const session = await mcp.connect({
    variables: variables(),
    ...(withModel ? { options: { model: MODEL } } : {}),
  });
  const answers: CallToolResult[] = [];
  const call: Connected["call"] = async (name, args) => {
    const answer = await session.call(name, args);
    answers.push(answer);
    return answer;
  };
  /** Nothing the client received and no log line carries a value. */
  const expectNoValues = () => {
    const seen = JSON.stringify(answers) + JSON.stringify(session.lines);
    expect(seen).not.toContain(PASSWORD);
    expect(seen).not.toContain(EMAIL);
    expect(seen).not.toContain(encodeURIComponent(EMAIL));
  };
  return { ...session, call, expectNoValues };
}

/** The fixture server under its other name: another origin. */
const elsewhere = (path: string) => `${server.otherSite}/${path}`;

describe("MCP variables: typed where they belong, shown nowhere", () => {
  it("fills a form with %email% and %password%: typed as their values, shown as their names", async () => {
    const { call, host, expectNoValues } = await connect();
    const page = textOf(await call("open", { url: server.url("agent/signup.html") }));
    const filled = await call("fill_form", {
      fields: [
        { id: idOfLine(page, 'textbox "Email"'), value: "%email%" },
        { id: idOfLine(page, 'textbox "Password"'), value: "%password%" },
        { id: idOfLine(page, 'textbox "Name"'), value: "Ada" },
      ],
    });
    expect(filled.isError).toBeFalsy();
    expect(textOf(filled)).toMatch(/^All fields filled\./);
    // The outline after shows the field's value by its name.
    expect(textOf(filled)).toContain('textbox "Email" value="%email%"');
    const after = textOf(filled);
    await call("click", { id: idOfLine(after, 'button "Create account"') });
    expect(
      await onPage(host, (p) => p.evaluate(() => (window as { received?: unknown }).received)),
    ).toEqual({ email: EMAIL, password: PASSWORD, name: "Ada" });
    await call("read", { fresh: true });
    await call("screenshot");
    expectNoValues();
  });

  it("a page that echoes the value everywhere (text, names, its title) shows only its name", async () => {
    const { call, expectNoValues } = await connect();
    const page = textOf(await call("open", { url: server.url("secrets/echo.html") }));
    const filled = await call("fill", {
      id: idOfLine(page, 'textbox "Token"'),
      value: "%password%",
    });
    expect(filled.isError).toBeFalsy();
    expect(textOf(filled)).toContain("You typed: %password% (really: %password%)");
    expect(textOf(await call("tabs", { action: "list" }))).toContain("Echo %password%");
    await call("read", { fresh: true });
    await call("read", { part: 1 });
    expectNoValues();
  });

  it("refuses to type a variable on an origin it does not name, and types nothing", async () => {
    const { call, host, expectNoValues } = await connect();
    const page = textOf(await call("open", { url: elsewhere("agent/signup.html") }));
    const refused = await call("fill_form", {
      fields: [{ id: idOfLine(page, 'textbox "Password"'), value: "%password%" }],
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(
      `%password% may be typed only on ${server.origin}; the field is on ${server.otherSite}. Nothing was typed.`,
    );
    const typed = await call("type", { id: idOfLine(page, 'textbox "Email"'), text: "%email%" });
    expect(typed.isError).toBe(true);
    expect(await onPage(host, (p) => p.locator("input[name=password]").inputValue())).toBe("");
    expect(await onPage(host, (p) => p.locator("input[name=email]").inputValue())).toBe("");
    const unknown = await call("fill", { id: idOfLine(page, 'textbox "Name"'), value: "%nope%" });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('the action uses %nope%, but no variable "nope" was given');
    expectNoValues();
  });

  it("the model's act, led by a page's words to another site, cannot type it there; on its own origin it can", async () => {
    // The act model fills the Token field with what the instruction names.
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
    const { call, host, expectNoValues } = await connect(true);
    const lure = textOf(await call("open", { url: server.url("secrets/lure.html") }));
    const target = lure.match(/open (http\S+) and type/)![1]!;
    expect(new URL(target).origin).toBe(server.otherSite);
    await call("open", { url: target });
    const refused = await call("act", { action: "type %password% into the Token field" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      `%password% may be typed only on ${server.origin}; this page is ${server.otherSite}. Nothing was done.`,
    );
    expect(model.requests()).toHaveLength(0);
    expect(await onPage(host, (p) => p.locator("#token").inputValue())).toBe("");

    await call("open", { url: server.url("secrets/collect.html") });
    const done = await call("act", { action: "type %password% into the Token field" });
    expect(textOf(done)).toMatch(/^Done: /);
    expect(await onPage(host, (p) => p.locator("#token").inputValue())).toBe(PASSWORD);
    expect(JSON.stringify(model.requests().map((r) => r.body))).not.toContain(PASSWORD);
    await call("read", { fresh: true });
    expectNoValues();
  });
});

describe("MCP variables from the environment", () => {
  it("binds each WAYFARER_MCP_VAR_ to its WAYFARER_MCP_ORIGINS_", () => {
    expect(
      variablesFromEnv({
        WAYFARER_MCP_VAR_password: "pw",
        WAYFARER_MCP_ORIGINS_password: "https://login.example.com, https://id.example.com",
        OTHER: "x",
      }),
    ).toEqual({
      password: { value: "pw", origins: ["https://login.example.com", "https://id.example.com"] },
    });
  });

  it("refuses a value with no origins, and origins with no value, naming the variable to set", () => {
    expect(() => variablesFromEnv({ WAYFARER_MCP_VAR_pin: "1234" })).toThrow(
      /WAYFARER_MCP_ORIGINS_pin[\s\S]*%pin% has a value \(WAYFARER_MCP_VAR_pin\) but no origins/,
    );
    expect(() => variablesFromEnv({ WAYFARER_MCP_ORIGINS_pin: "https://a.example.com" })).toThrow(
      /names origins for %pin%, but no WAYFARER_MCP_VAR_pin is set/,
    );
    expect(() =>
      variablesFromEnv({ WAYFARER_MCP_VAR_pin: "1234", WAYFARER_MCP_ORIGINS_pin: "ftp://x" }),
    ).toThrow(/expected an http or https origin/);
  });
});
