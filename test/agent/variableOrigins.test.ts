/**
 * Variables bound to where they belong: a page's words told the model to take `%password%` to
 * another site; the model obeys, the library refuses to type it there, and the run goes on.
 * 127.0.0.1 and localhost are the same fixture server under two origins.
 */
import { describe, expect, it } from "vitest";
import { ServiceValidationError } from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { call, lastOutput, openaiAgent } from "../support/llm/agentModel.js";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-origins-test-key-123456";
const SECRET = "hunter2-correct-horse";

const otherOrigin = () => new URL(server.url("")).origin.replace("127.0.0.1", "localhost");
const ownOrigin = () => new URL(server.url("")).origin;

/** The act model: fills the Token field with the token the instruction names. */
const fillToken = openaiResponses((request) => {
  const prompt = promptOf(request);
  const id = idOfLine(prompt, 'textbox "Token"');
  return {
    elements: id
      ? [{ elementId: id, description: "Token", method: "fill", arguments: ["%password%"] }]
      : [],
  };
});

/** The agent obeys the page: reads it, opens the URL it names, types the secret there. */
const obeyingAgent = openaiAgent((turn) => {
  const n = turn.history.length;
  if (n === 0) return { calls: [call("outline")] };
  if (n === 1) {
    const url = lastOutput(turn, "outline")!.match(/open (http\S+?) and type/)![1]!;
    return { calls: [call("goto", { url })] };
  }
  if (n === 2) return { calls: [call("act", { action: "type %password% into the Token field" })] };
  return { calls: [call("done", { success: true, message: String(lastOutput(turn, "act")) })] };
});

/** The other site's field inside framed.html. */
const frameField = (page: import("../../lib/index.js").Page) =>
  page.playwrightPage.frameLocator("#other").locator("#token");

const open = (file: string) =>
  clients.openOn(server.url(file), { model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY } });

describe("variables typed only where they belong", () => {
  it("the agent obeying a page cannot type a variable on another site; the run goes on", async () => {
    model.use(obeyingAgent, fillToken);
    const client = await open("secrets/lure.html");
    const result = await client
      .agent()
      .execute({ instruction: "Check my account", variables: { password: SECRET } });
    const page = client.context.activePage()!;
    expect(page.url()).toBe(`${otherOrigin()}/secrets/collect.html`);
    // Nothing reached the other site's field.
    expect(await page.locator("#token").inputValue()).toBe("");
    expect(result.completed).toBe(true);
    const refusal = `%password% may be typed only on ${ownOrigin()}; the field is on ${otherOrigin()}. Nothing was typed.`;
    expect(result.actions[2]).toMatchObject({ type: "act", success: false });
    // The model read the refusal in the tool's answer.
    expect(result.message).toContain(refusal);
    expect(JSON.stringify(model.requests().map((r) => r.body))).not.toContain(SECRET);
  });

  it("types it on an origin the variable names", async () => {
    model.use(obeyingAgent, fillToken);
    const client = await open("secrets/lure.html");
    const result = await client.agent().execute({
      instruction: "Check my account",
      variables: { password: { value: SECRET, origins: [`${otherOrigin()}/any/path`] } },
    });
    expect(result.actions[2]).toMatchObject({ type: "act", success: true });
    expect(await client.context.activePage()!.locator("#token").inputValue()).toBe(SECRET);
  });

  it("act types into its own page's fields, not into another site's frame inside it", async () => {
    const client = await open("secrets/framed.html");
    const page = client.context.activePage()!;
    const variables = { password: SECRET };
    const own = await client.act(
      { selector: "#own", description: "own", method: "fill", arguments: ["%password%"] },
      { variables },
    );
    expect(own.success).toBe(true);
    expect(await page.locator("#own").inputValue()).toBe(SECRET);
    const framed = { selector: "#other >> #token", description: "token", method: "fill" as const };
    const refused = await client.act(
      { ...framed, arguments: ["%password%"] },
      { variables: { password: SECRET } },
    );
    expect(refused.success).toBe(false);
    expect(refused.message).toContain(`the field is on ${otherOrigin()}`);
    expect(await frameField(page).inputValue()).toBe("");
    // Plain text (no variable) is not the rule's business.
    expect((await client.act({ ...framed, arguments: ["plain"] })).success).toBe(true);
    const allowed = await client.act(
      { ...framed, arguments: ["%password%"] },
      { variables: { password: { value: SECRET, origins: [otherOrigin()] } } },
    );
    expect(allowed.success).toBe(true);
    expect(await frameField(page).inputValue()).toBe(SECRET);
  });

  it("typeAt types where the focus is only when every frame on the way may have the value", async () => {
    const client = await open("secrets/framed.html");
    const page = client.context.activePage()!;
    const centre = async (selector: string) => {
      const box = (await page.playwrightPage.locator(selector).boundingBox())!;
      return { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
    };
    const own = await centre("#own");
    const box = (await frameField(page).boundingBox())!;
    const framed = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
    model.use(
      openaiAgent((turn) => {
        const n = turn.history.length;
        if (n === 0) return { calls: [call("typeAt", { ...own, text: "%password%" })] };
        if (n === 1) return { calls: [call("typeAt", { ...framed, text: "%password%" })] };
        return {
          calls: [call("done", { success: true, message: String(turn.history[1]!.output) })],
        };
      }),
    );
    const result = await client
      .agent({ mode: "hybrid" })
      .execute({ instruction: "Type it twice", variables: { password: SECRET } });
    expect(await page.locator("#own").inputValue()).toBe(SECRET);
    expect(await frameField(page).inputValue()).toBe("");
    expect(result.message).toContain(`the field is on ${otherOrigin()}`);
  });

  it("refuses an origin that is not an http(s) URL, naming the field", async () => {
    const client = await open("secrets/framed.html");
    const error = await failure(
      client.act(
        { selector: "#own", description: "own", method: "fill", arguments: ["%pw%"] },
        { variables: { pw: { value: SECRET, origins: ["javascript:alert(1)"] } } },
      ),
    );
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect(error.message).toMatch(/variables.*origins/);
    expect(error.message).toContain("expected an http or https origin");
  });
});
