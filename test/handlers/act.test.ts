import { describe, expect, it } from "vitest";
import { ServiceValidationError } from "../../lib/index.js";
import type { LogLine } from "../../lib/log.js";
import { useClients } from "../support/clients.js";
import { useBrowserProfile } from "../support/env.js";
import { failure } from "../support/failure.js";
import { promptOf, useModelServer } from "../support/llm/modelServer.js";
import { clickingLine, OPENAI_USAGE, openaiResponses } from "../support/llm/openai.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-act-test-key-123456";

function idAfter(prompt: string, after: string, target: string): string | undefined {
  const lines = prompt.split("\n");
  const start = lines.findIndex((l) => l.includes(after));
  if (start < 0) return undefined;
  for (const line of lines.slice(start)) {
    const m = line.match(/^\s*\[(\d+)\] /);
    if (m && line.includes(target)) return m[1];
  }
  return undefined;
}

/** The scripted model: the "Add to cart" button after the product the instruction names. */
const addToCart = openaiResponses((r) => {
  const prompt = promptOf(r);
  // The product is named in the instruction, before the outline.
  const instruction = prompt.split("Page outline:")[0]!.toLowerCase();
  const product = ["Green tea", "Black tea", "White tea", "Oolong"].find((p) =>
    instruction.includes(p.toLowerCase()),
  );
  const id = product ? idAfter(prompt, `link "${product}"`, 'button "Add to cart"') : undefined;
  return {
    elements: id
      ? [
          {
            elementId: id,
            description: `Add to cart button for ${product}`,
            method: "click",
            arguments: [],
          },
        ]
      : [],
  };
});

const open = (file: string, options: Record<string, unknown> = {}) =>
  clients.openOn(server.url(file), {
    model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
    ...options,
  });
const cart = (client: Awaited<ReturnType<typeof open>>) =>
  client.context.activePage()!.deepLocator("#cart").textContent();

describe("act", () => {
  it("does what the instruction says, on the element among identical ones the words point to", async () => {
    model.use(addToCart);
    const client = await open("outline/shop.html");
    const result = await client.act("add black tea to the cart");
    expect(result).toMatchObject({
      success: true,
      actionDescription: "Add to cart button for Black tea",
    });
    expect(await cart(client)).toBe("Cart: black");
    expect((await client.metrics).actPromptTokens).toBe(OPENAI_USAGE.input);
    expect((await client.metrics).observePromptTokens).toBe(0);
    expect((await client.history).at(-1)).toMatchObject({
      method: "act",
      parameters: { instruction: "add black tea to the cart" },
    });
  });

  it("performs an Action from observe with no model call", async () => {
    model.use(addToCart);
    const client = await open("outline/shop.html");
    const [action] = await client.observe("The one element to act on, and how, to: add oolong");
    expect(model.requests()).toHaveLength(1);
    const result = await client.act(action!);
    expect(result.success).toBe(true);
    expect(model.requests()).toHaveLength(1);
    expect(await cart(client)).toBe("Cart: oolong");
  });

  it("fills %password% from variables at the last moment: the value reaches no request, log or history", async () => {
    const secret = "correct-horse-battery-staple";
    model.use(
      openaiResponses((r) => ({
        elements: [
          {
            elementId: idAfter(promptOf(r), "", 'textbox "Password"') ?? "0",
            description: "password field",
            method: "fill",
            arguments: ["%password%"],
          },
        ],
      })),
    );
    const lines: LogLine[] = [];
    const client = await open("outline/form.html", {
      verbose: 2,
      logger: (l: LogLine) => lines.push(l),
    });
    const result = await client.act("enter the password", { variables: { password: secret } });
    expect(result.success).toBe(true);
    expect(await client.context.activePage()!.deepLocator("#password").inputValue()).toBe(secret);
    expect(JSON.stringify(model.requests().map((r) => r.body))).not.toContain(secret);
    expect(JSON.stringify(await client.history)).not.toContain(secret);
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(result.actions[0]!.arguments).toEqual(["%password%"]);
    const missing = await failure(client.act(result.actions[0]!));
    expect(missing).toBeInstanceOf(ServiceValidationError);
  });

  it("an instruction that matches nothing: no success, nothing changed", async () => {
    model.use(addToCart);
    const client = await open("outline/shop.html");
    const result = await client.act("launch the rocket");
    expect(result.success).toBe(false);
    expect(result.message).toContain("No element matches");
    expect(await cart(client)).toBe("Cart: empty");
  });

  it("selects a native dropdown's option by its text", async () => {
    const client = await open("outline/form.html");
    const result = await client.act({
      selector: "xpath=//select[@id='country']",
      description: "country",
      method: "selectOptionFromDropdown",
      arguments: ["Italy"],
    });
    expect(result.success).toBe(true);
    expect(await client.context.activePage()!.deepLocator("#country").inputValue()).toBe("Italy");
  });

  it("heals an Action the page moved from under: found again by its description, done once", async () => {
    model.use(addToCart);
    const client = await open("outline/shop.html");
    const [action] = await client.observe("The one element to act on, and how, to: add white tea");
    // The list is re-rendered inside a new wrapper: the old selector now matches nothing.
    await client.context
      .activePage()!
      .evaluate(
        "const ul = document.querySelector('ul'); const div = document.createElement('div'); ul.replaceWith(div); div.append(ul);",
      );
    const result = await client.act(action!, { timeout: 6_000 });
    expect(result.success).toBe(true);
    expect(result.actions).toHaveLength(2);
    expect(result.actions[1]!.selector).not.toBe(action!.selector);
    expect(await cart(client)).toBe("Cart: white");
  });
});

describe("act in hard places", () => {
  it("selects an option of a custom dropdown", async () => {
    const client = await open("outline/dropdown.html");
    const result = await client.act({
      selector: "#size",
      description: "size picker",
      method: "selectOptionFromDropdown",
      arguments: ["Large"],
    });
    expect(result.success).toBe(true);
    expect(await client.context.activePage()!.deepLocator("#size").textContent()).toBe("Large");
  });

  for (const profile of ["local", "serverless"] as const) {
    describe(`${profile} profile`, () => {
      useBrowserProfile(profile);
      it("clicks a button in a closed shadow root inside a cross-site frame", async () => {
        model.use(
          openaiResponses((r) => ({
            elements: [
              {
                elementId: idAfter(promptOf(r), "", 'button "Closed in frame"') ?? "0",
                description: "the closed component's button",
                method: "click",
                arguments: [],
              },
            ],
          })),
        );
        const client = await clients.open({
          model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
        });
        await client.context
          .activePage()!
          .goto(
            `${server.url("outline/frames-outer.html")}?other=${encodeURIComponent(server.otherSite)}`,
          );
        const result = await client.act("click the button in the closed component");
        expect(result.success).toBe(true);
        const { pageText } = await client.extract();
        expect(pageText).toContain('button "Closed clicked"');
      });
    });
  }
});

/** What a caller, a history entry or a model may be shown: one line, no escape codes, no call log. */
function expectReadable(text: unknown) {
  expect(String(text)).not.toContain("\u001b");
  expect(String(text)).not.toContain("Call log");
  expect(String(text)).not.toContain("\n");
}

describe("act's failures read as one line", () => {
  it("a failed action says what failed, with no escape codes, call log or line breaks; its raw text goes to a debug line", async () => {
    const lines: LogLine[] = [];
    const client = await clients.open({ verbose: 2, logger: (l: LogLine) => lines.push(l) });
    await client.context.activePage()!.goto(server.url("outline/shop.html"));
    // Playwright refuses to fill a paragraph, with its call log and colour codes.
    const result = await client.act(
      { selector: "#cart", description: "the cart line", method: "fill", arguments: ["x"] },
      { timeout: 3_000 },
    );
    expect(result.success).toBe(false);
    expectReadable(result.message);
    expect(result.message).toContain('deepLocator("#cart").fill');
    expect(result.message).toContain("not an <input>");
    const entry = (await client.history).at(-1)!;
    expectReadable(JSON.stringify(entry.result));
    expect(JSON.stringify(entry.result)).toContain("not an <input>");
    const debug = lines.filter((l) => l.level === 2 && JSON.stringify(l).includes("Call log"));
    expect(debug.length).toBeGreaterThan(0);
    expect(JSON.stringify(debug)).not.toContain("\\u001b");
  });

  it("an unknown key to press says so in one line", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/form.html"));
    const result = await client.act(
      {
        selector: "xpath=//input[@type='tel']",
        description: "phone",
        method: "press",
        arguments: ["NoSuchKey"],
      },
      { timeout: 3_000 },
    );
    expect(result.success).toBe(false);
    expectReadable(result.message);
    expect(result.message).toContain('Unknown key: "NoSuchKey"');
  });
});

describe("act keeps variable values to itself", () => {
  it("a failed action's message and history never show the value; an Action needs no model, even to fail", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/shop.html"));
    const secret = "s3cret-value-42";
    const result = await client.act(
      { selector: "#cart", description: "the cart line", method: "fill", arguments: ["%code%"] },
      { variables: { code: secret }, timeout: 3_000 },
    );
    expect(result.success).toBe(false);
    expect(result.message).not.toContain(secret);
    expect(JSON.stringify(await client.history)).not.toContain(secret);
  });

  it("a value typed from a variable shows as its %name% in every later outline", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/form.html"));
    const phone = "+33 6 12 34 56 78";
    const result = await client.act(
      {
        selector: "xpath=//input[@type='tel']",
        description: "phone",
        method: "fill",
        arguments: ["%phone%"],
      },
      // "Phone" is given too but never typed: the page's own word must stay.
      { variables: { phone, label: "Phone" } },
    );
    expect(result.success).toBe(true);
    const { pageText } = await client.extract();
    expect(pageText).not.toContain(phone);
    expect(pageText).toMatch(/textbox "Phone" value="%phone%"/);
    expect(pageText).not.toContain("%label%");
  });

  it("hides a typed value with quotes and backslashes in the outline's quoted value too", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/form.html"));
    const pw = 'Tr0ub"4dor\\3';
    const result = await client.act(
      {
        selector: "xpath=//input[@type='tel']",
        description: "phone",
        method: "fill",
        arguments: ["%pw%"],
      },
      { variables: { pw } },
    );
    expect(result.success).toBe(true);
    const { pageText } = await client.extract();
    expect(pageText).toMatch(/textbox "Phone" value="%pw%"/);
    expect(pageText).not.toContain("4dor");
  });

  it("returns with the tab its click opened as the active page", async () => {
    model.use(clickingLine('link "Green tea in a new tab"'));
    const client = await open("agent/links.html");
    const result = await client.act("open green tea in a new tab");
    expect(result.success).toBe(true);
    expect(client.context.pages()).toHaveLength(2);
    expect(client.context.activePage()!.url()).toBe(server.url("agent/item.html?id=green"));
    expect((await client.extract()).pageText).toContain("Shizuoka");
  });

  it("refuses an empty instruction, naming it", async () => {
    const client = await clients.open();
    expect((await failure(client.act("   "))).message).toContain("act.instruction");
    expect((await failure(client.observe(""))).message).toContain("observe.instruction");
  });
});
