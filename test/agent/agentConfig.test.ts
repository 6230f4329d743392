import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cursorPosition } from "../../lib/agent/cursor.js";
import type { AgentEvent } from "../../lib/index.js";
import { Client, type LogLine } from "../../lib/index.js";
import { ENGINE, useClients } from "../support/clients.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { call, lastOutput, openaiAgent } from "../support/llm/agentModel.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { teaAgent, teaExecutionModel } from "../support/llm/teaAgent.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-agent-config-key-123456";

const open = (file: string, options: Record<string, unknown> = {}) =>
  clients.openOn(server.url(file), {
    model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
    ...options,
  });

const finishAtOnce = openaiAgent(() => ({
  calls: [call("done", { success: true, message: "ok" })],
}));

describe("agent configuration", () => {
  it("uses executionModel for the tools' act/extract calls and the main model for the steps", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const client = await open("agent/search.html");
    const result = await client
      .agent({ model: "openai/gpt-4.1", executionModel: "openai/gpt-4.1-nano" })
      .execute("Find the price of green tea");
    expect(result.message).toBe("The price is $4.20");
    const requests = model.requestsTo("/responses");
    const steps = requests.filter((r) => Array.isArray(r.body.tools));
    const tools = requests.filter((r) => !Array.isArray(r.body.tools));
    expect(new Set(steps.map((r) => r.body.model))).toEqual(new Set(["gpt-4.1"]));
    expect(new Set(tools.map((r) => r.body.model))).toEqual(new Set(["gpt-4.1-nano"]));
  });

  it("lets the tools inherit the agent's model when executionModel is absent", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const client = await open("agent/search.html");
    await client.agent({ model: "openai/gpt-4.1" }).execute("Find the price of green tea");
    const models = new Set(model.requestsTo("/responses").map((r) => r.body.model));
    expect(models).toEqual(new Set(["gpt-4.1"]));
  });

  it("adds the caller's systemPrompt to the agent's own", async () => {
    model.use(finishAtOnce);
    const client = await open("agent/search.html");
    await client.agent({ systemPrompt: "Answer in French." }).execute("Say hi");
    const sent = JSON.stringify(model.requestsTo("/responses")[0]!.body.input);
    expect(sent).toContain("browser agent");
    expect(sent).toContain("Answer in French.");
  });

  it("turns the deprecated provider field into a model prefix, with a warning", async () => {
    model.use(finishAtOnce);
    const lines: LogLine[] = [];
    const client = await open("agent/search.html", {
      logger: (l: LogLine) => lines.push(l),
      verbose: 1,
    });
    await client.agent({ provider: "openai", model: "gpt-4.1" }).execute("Say hi");
    expect(model.requestsTo("/responses")[0]!.body.model).toBe("gpt-4.1");
    expect(lines.find((l) => l.message.includes("provider is deprecated"))).toMatchObject({
      level: 1,
    });
  });

  it("lets mode win over the deprecated cua flag, with a warning", async () => {
    model.use(finishAtOnce);
    const lines: LogLine[] = [];
    const client = await open("agent/search.html", {
      logger: (l: LogLine) => lines.push(l),
      verbose: 1,
    });
    const result = await client.agent({ mode: "dom", cua: true }).execute("Say hi");
    expect(result.success).toBe(true);
    expect(lines.find((l) => l.message.includes("cua is deprecated"))?.message).toContain(
      'mode "dom" is given and wins',
    );
    // cua alone asks for the cua mode, which this model cannot run: said at once, nothing run.
    expect(() => client.agent({ cua: true })).toThrow(
      'Model openai/gpt-4.1-mini is not supported for agent mode "cua". Modes it can run: dom, hybrid.',
    );
  });

  it("refuses a mode the model cannot run, naming the modes it can", async () => {
    const client = await open("agent/search.html");
    const fail = (config: Parameters<typeof client.agent>[0]) => {
      try {
        client.agent(config);
      } catch (error) {
        return error as Error & { supported?: string[] };
      }
      return undefined;
    };
    expect(fail({ mode: "cua", model: "openai/gpt-4.1" })).toMatchObject({
      name: "UnsupportedModelError",
      supported: ["dom", "hybrid"],
    });
    expect(fail({ mode: "hybrid", model: "openai/gpt-3.5-turbo" })).toMatchObject({
      name: "UnsupportedModelError",
      supported: ["dom"],
      message: expect.stringContaining('agent mode "hybrid"'),
    });
    expect(fail({ mode: "cua", model: "anthropic/claude-sonnet-4-5" })).toBeUndefined();
    expect(fail({ mode: "cua", model: "openai/computer-use-preview" })).toBeUndefined();
    // OpenAI's computer-use model speaks nothing but that protocol; Gemini's run every mode.
    expect(fail({ model: "openai/computer-use-preview" })).toMatchObject({
      name: "UnsupportedModelError",
      supported: ["cua"],
    });
    expect(
      fail({ mode: "hybrid", model: "google/gemini-2.5-computer-use-preview-10-2025" }),
    ).toBeUndefined();
    expect(fail({ mode: "hybrid", model: "google/gemini-2.5-flash" })).toBeUndefined();
    // A custom llmClient is taken at its word for dom and hybrid, never for cua.
    expect(model.requests()).toHaveLength(0);
  });

  it("names the field and what was expected for bad config or options", async () => {
    const client = await open("agent/search.html");
    expect(() => client.agent({ mode: "auto" } as never)).toThrow(/agent\.config\.mode/);
    expect(() => client.agent({ model: "gpt-4.1", temperature: 1 } as never)).toThrow(
      /temperature/,
    );
    const agent = client.agent();
    await expect(agent.execute("  ")).rejects.toThrow(/agent\.execute\.instruction/);
    await expect(agent.execute({ instruction: "x", maxSteps: 0 })).rejects.toThrow(
      /at least 1 step → at agent\.execute\.maxSteps/,
    );
    await expect(agent.execute({ instruction: "x", toolTimeout: -5 })).rejects.toThrow(
      /toolTimeout/,
    );
    await expect(
      agent.execute({ instruction: "x", variables: { "bad name": "v" } }),
    ).rejects.toThrow(/variables/);
    expect(model.requests()).toHaveLength(0);
  });

  it("starts on the page given, which becomes the active one", async () => {
    model.use(
      openaiAgent((turn) =>
        turn.history.length === 0
          ? { calls: [call("outline")] }
          : { calls: [call("done", { success: true, message: String(turn.history[0]!.output) })] },
      ),
    );
    const client = await open("agent/search.html");
    const second = await client.context.newPage();
    await second.goto(server.url("agent/item.html?id=white"));
    client.context.setActivePage(client.context.pages()[0]!);
    const result = await client.agent().execute({ instruction: "Read", page: second });
    expect(result.message).toContain("White tea");
    expect(model.requestsTo("/responses")[0]!.body.input).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          content: expect.arrayContaining([
            expect.objectContaining({ text: expect.stringContaining("item.html?id=white") }),
          ]),
        }),
      ]),
    );
    expect(client.context.activePage()).toBe(second);
  });

  it("refuses execute() before init() with ServiceNotInitializedError", async () => {
    const client = new Client({ env: "LOCAL", disablePino: true, verbose: 0 });
    await expect(client.agent().execute("x")).rejects.toMatchObject({
      name: "ServiceNotInitializedError",
    });
  });

  it("points a visible cursor at the element it acts on with highlightCursor", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const client = await open("agent/search.html");
    const page = client.context.activePage()!;
    const box = await page.locator("#q").boundingBox();
    let at: { x: number; y: number } | null = null;
    let steps = 0;
    model.use(
      // Where the cursor is while the model chooses the step after act.
      http.post("https://api.openai.com/v1/responses", async ({ request }) => {
        const body = (await request.clone().json()) as { tools?: unknown };
        if (body.tools && ++steps === 2) at = await cursorPosition(page);
        return undefined;
      }),
      openaiAgent((turn) =>
        turn.history.length === 0
          ? { calls: [call("act", { action: "type green into the search field" })] }
          : { calls: [call("done", { success: true, message: "typed" })] },
      ),
    );
    await client.agent().execute({ instruction: "Type green", highlightCursor: true });
    expect(at!.x).toBeCloseTo(box!.x + box!.width / 2, 0);
    expect(at!.y).toBeCloseTo(box!.y + box!.height / 2, 0);
    // The run takes it off the page when it ends.
    expect(await cursorPosition(page)).toBeNull();
    // Without the option, no cursor is put on the page.
    await page.goto(server.url("agent/search.html"));
    await client.agent().execute("Type green");
    expect(await cursorPosition(page)).toBeNull();
  });
});

describe("agent streaming", () => {
  it("streams step events in order and resolves the same result", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const client = await open("agent/search.html");
    const { fullStream, result } = client
      .agent({ stream: true })
      .execute("Find the price of white tea");
    const events: AgentEvent[] = [];
    for await (const e of fullStream) events.push(e);
    const final = await result;
    expect(final.message).toBe("The price is $7.10");
    expect(events.at(-1)).toEqual({ type: "finish", result: final });
    // Per step: start, (text), tool call, its result, finish; steps numbered from 1.
    const shape = events.slice(0, -1).map((e) => `${e.type}:${"step" in e ? e.step : ""}`);
    expect(shape.slice(0, 4)).toEqual([
      "step-start:1",
      "tool-call:1",
      "tool-result:1",
      "step-finish:1",
    ]);
    expect(shape.at(-1)).toBe(`step-finish:${final.metadata!.steps}`);
    expect(shape).toContain(`text:${final.metadata!.steps}`);
    const calls = events.filter((e) => e.type === "tool-call").map((e) => e.toolName);
    expect(calls).toEqual(final.actions.map((a) => a.type));
    const results = events.filter((e) => e.type === "tool-result");
    expect(results.map((e) => e.toolCallId)).toEqual(
      events.filter((e) => e.type === "tool-call").map((e) => e.toolCallId),
    );
  });

  it("ends the stream with an error event when the run fails, and rejects result", async () => {
    model.use(
      http.post("https://api.openai.com/v1/responses", () =>
        HttpResponse.json({ error: { message: "model overloaded" } }, { status: 400 }),
      ),
    );
    const client = await open("agent/search.html");
    const { fullStream, result } = client.agent({ stream: true }).execute("Anything");
    const events: AgentEvent[] = [];
    for await (const e of fullStream) events.push(e);
    // A service tells a provider's failure by its status, never the provider's body.
    const told = ENGINE === "remote" ? "HTTP 400" : "overloaded";
    expect(events.at(-1)).toMatchObject({ type: "error", error: expect.stringContaining(told) });
    await expect(result).rejects.toThrow(told);
  });
});

describe("agent web search (useSearch)", () => {
  let searx: Server | undefined;
  let restoreEnv: () => void = () => {};
  beforeEach(() => {
    restoreEnv = restoreEnvAfterwards();
  });
  afterEach(async () => {
    restoreEnv();
    await new Promise((r) => (searx ? searx.close(r) : r(undefined)));
    searx = undefined;
  });

  it("searches through a SearXNG backend from the environment and opens a result", async () => {
    const queries: string[] = [];
    searx = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      queries.push(`${url.pathname}?${url.searchParams}`);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          results: [
            {
              title: "White tea - Tea shop",
              url: server.url("agent/item.html?id=white"),
              content: "Fujian white tea",
            },
          ],
        }),
      );
    });
    await new Promise<void>((r) => searx!.listen(0, "127.0.0.1", r));
    process.env.WAYFARER_SEARXNG_URL = `http://127.0.0.1:${(searx.address() as AddressInfo).port}`;
    model.use(
      openaiAgent((turn) => {
        expect(turn.tools).toContain("search");
        const found = lastOutput(turn, "search");
        if (!found) return { calls: [call("search", { query: "white tea price" })] };
        const opened = lastOutput(turn, "outline");
        if (!opened) {
          if (turn.history.at(-1)?.name === "goto") return { calls: [call("outline")] };
          return { calls: [call("goto", { url: found.match(/http\S+/)![0] })] };
        }
        return {
          calls: [call("done", { success: true, message: opened.match(/\$\d+\.\d\d/)![0] })],
        };
      }),
    );
    const client = await open("agent/search.html");
    const result = await client
      .agent()
      .execute({ instruction: "Price of white tea", useSearch: true });
    expect(result).toMatchObject({ success: true, message: "$7.10" });
    expect(queries).toEqual(["/search?q=white+tea+price&format=json"]);
    expect(result.actions[0]).toMatchObject({ type: "search", query: "white tea price" });
  });

  it("offers no search tool without useSearch", async () => {
    model.use(finishAtOnce);
    const client = await open("agent/search.html");
    await client.agent().execute("Say hi");
    const tools = model.requestsTo("/responses")[0]!.body.tools as { name: string }[];
    expect(tools.map((t) => t.name)).not.toContain("search");
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "act",
        "extract",
        "outline",
        "goto",
        "back",
        "scroll",
        "keys",
        "wait",
        "screenshot",
        "fillForm",
        "think",
        "done",
      ]),
    );
  });

  it("says which variables to set when useSearch has no backend", async () => {
    delete process.env.WAYFARER_SEARXNG_URL;
    delete process.env.BRAVE_SEARCH_API_KEY;
    const client = await open("agent/search.html");
    await expect(
      client.agent().execute({ instruction: "x", useSearch: true }),
    ).rejects.toMatchObject({
      name: "MissingEnvironmentVariableError",
      message: expect.stringMatching(/WAYFARER_SEARXNG_URL or BRAVE_SEARCH_API_KEY/),
    });
    expect(model.requests()).toHaveLength(0);
  });

  it("searches through the Brave Search API with its key, which stays out of the result", async () => {
    const BRAVE_KEY = "brave-test-key-0123456789abcdef";
    delete process.env.WAYFARER_SEARXNG_URL;
    process.env.BRAVE_SEARCH_API_KEY = BRAVE_KEY;
    model.use(
      http.get("https://api.search.brave.com/res/v1/web/search", ({ request }) => {
        if (request.headers.get("x-subscription-token") !== BRAVE_KEY) {
          return HttpResponse.json({ error: "bad key" }, { status: 401 });
        }
        const q = new URL(request.url).searchParams.get("q");
        return HttpResponse.json({
          web: {
            results: [
              {
                title: `About ${q}`,
                url: "https://example.org/tea",
                description: `key ${BRAVE_KEY}`,
              },
            ],
          },
        });
      }),
      openaiAgent((turn) => {
        const found = lastOutput(turn, "search");
        if (!found) return { calls: [call("search", { query: "oolong" })] };
        return { calls: [call("done", { success: true, message: found })] };
      }),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute({ instruction: "Search oolong", useSearch: true });
    expect(result.message).toContain("About oolong");
    expect(result.message).toContain("https://example.org/tea");
    expect(JSON.stringify(result)).not.toContain(BRAVE_KEY);
    expect(JSON.stringify(model.requestsTo("/responses").map((r) => r.body))).not.toContain(
      BRAVE_KEY,
    );
  });
});
