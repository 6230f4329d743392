import { describe, expect, it } from "vitest";
import { useClients } from "../support/clients.js";
import { type ModelRequest, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { OPENAI_USAGE, openaiResponses } from "../support/llm/openai.js";
import { expectIdsResolve, refsIn } from "../support/outline.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-observe-test-key-123456";

/** The id of the first `[id]` line containing `target` after the line containing `after`. */
function idAfter(prompt: string, after: string, target: string): string | undefined {
  const lines = prompt.split("\n");
  const start = lines.findIndex((l) => l.includes(after));
  for (const line of lines.slice(Math.max(start, 0))) {
    const m = line.match(/^\s*\[(\d+)\] /);
    if (m && line.includes(target)) return m[1];
  }
  return undefined;
}

const element = (elementId: string | undefined, method = "click", args: string[] = []) => ({
  elementId: elementId ?? "none",
  description: "the element",
  method,
  arguments: args,
});

async function open(file: string, options: Record<string, unknown> = {}) {
  const client = await clients.open({
    model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
    ...options,
  });
  await client.context.activePage()!.goto(file.startsWith("http") ? file : server.url(file));
  return client;
}

describe("observe", () => {
  it("tells four identical buttons apart by what is around them", async () => {
    model.use(
      openaiResponses((r) => {
        const prompt = promptOf(r);
        const product = ["Green tea", "Black tea", "White tea", "Oolong"].find((p) =>
          prompt.includes(`add ${p.toLowerCase()}`),
        );
        return {
          elements: [element(idAfter(prompt, `link "${product}"`, 'button "Add to cart"'))],
        };
      }),
    );
    const client = await open("outline/shop.html");
    const page = client.context.activePage()!;
    for (const [product, ref] of [
      ["White tea", "Add white"],
      ["Green tea", "Add green"],
    ] as const) {
      const [action] = await client.observe(`add ${product.toLowerCase()} to the cart`);
      expect(action!.method).toBe("click");
      expect(action!.selector).toMatch(/^xpath=\//);
      expect(await page.deepLocator(action!.selector).getAttribute("data-ref")).toBe(ref);
    }
    const metrics = await client.metrics;
    expect(metrics.observePromptTokens).toBe(2 * OPENAI_USAGE.input);
    expect((await client.history).filter((h) => h.method === "observe")).toHaveLength(2);
  });

  it("finds elements in a cross-site frame and in a closed shadow root", async () => {
    model.use(
      openaiResponses((r) => ({
        elements: [element(idAfter(promptOf(r), "", 'button "Closed in frame"'))],
      })),
    );
    const client = await open(
      `${server.url("outline/frames-outer.html")}?other=${encodeURIComponent(server.otherSite)}`,
    );
    const [action] = await client.observe("the button in the closed component");
    const page = client.context.activePage()!;
    expect(await page.deepLocator(action!.selector).getAttribute("data-ref")).toBe(
      "Closed in frame",
    );
  });

  it("sends variable names, never values, and keeps %tokens% in the arguments", async () => {
    model.use(
      openaiResponses((r) => ({
        elements: [element(idAfter(promptOf(r), "", 'textbox "Password"'), "fill", ["%password%"])],
      })),
    );
    const client = await open("outline/form.html");
    const secret = "correct horse battery staple";
    const [action] = await client.observe("type the password", {
      variables: { password: { value: secret, description: "the account password" } },
    });
    expect(action).toMatchObject({ method: "fill", arguments: ["%password%"] });
    const body = JSON.stringify(model.requests()[0]!.body);
    expect(body).toContain("%password%: the account password");
    expect(body).not.toContain(secret);
    expect(JSON.stringify(await client.history)).not.toContain(secret);
  });

  it("returns [] when nothing matches, and leaves out ids the outline does not have", async () => {
    model.use(openaiResponses(() => ({ elements: [element("999")] })));
    const client = await open("outline/shop.html");
    expect(await client.observe("the rocket launch button")).toEqual([]);
  });

  it("without an instruction: every interactive element, and no model call", async () => {
    const client = await open("outline/form.html");
    const actions = await client.observe();
    expect(model.requests()).toEqual([]);
    const snapshotIds = Object.fromEntries(actions.map((a, i) => [String(i + 1), a.selector]));
    await expectIdsResolve(
      client,
      {
        text: actions.map((a, i) => `[${i + 1}] ${a.description}`).join("\n"),
        selectors: snapshotIds,
      } as never,
      refsIn("outline/form.html"),
    );
  });

  it("walks the outline chunk by chunk when it is over the token budget", async () => {
    const seen: string[] = [];
    model.use(
      openaiResponses((r: ModelRequest) => {
        const prompt = promptOf(r);
        seen.push(prompt);
        const id = idAfter(prompt, "", 'link "Card title');
        return { elements: id ? [element(id)] : [] };
      }),
    );
    const client = await open("outline/form.html", { outlineTokenBudget: 120 });
    const [action] = await client.observe("the card link");
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((p) => p.length < 2_000)).toBe(true);
    const page = client.context.activePage()!;
    expect(await page.deepLocator(action!.selector).getAttribute("data-ref")).toBe("Card title");
  });
});
