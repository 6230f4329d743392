/**
 * The MCP tools backed by the server's model (listed only when it has one), the model scripted
 * at its HTTP boundary by the model kit: extract with a JSON Schema, observe, and the agent
 * whose steps come as progress notifications and which the client can cancel.
 */
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { delay, http } from "msw";
import { describe, expect, it } from "vitest";
import { call, openaiAgent } from "../support/llm/agentModel.js";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { teaAgentById } from "../support/llm/teaAgent.js";
import { useStaticServer } from "../support/staticServer.js";
import { textOf, useMcp } from "./inMemory.js";

const server = useStaticServer();
const model = useModelServer();
const mcp = useMcp();
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-mcp-model-tools-123456" };

const connect = () => mcp.connect({ options: { model: MODEL } });

/** The agent's step requests (those offering tools). */
const agentSteps = () =>
  model
    .requestsTo("/responses")
    .filter((r) => Array.isArray(r.body.tools) && (r.body.tools as unknown[]).length > 0);

describe("MCP tools backed by the model", () => {
  it("are listed when the server has a model", async () => {
    const { client } = await connect();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.slice(-4)).toEqual(["act", "extract", "observe", "agent"]);
    expect(model.requests()).toHaveLength(0);
  });

  it("extracts data in the shape of a JSON Schema, as JSON text and structured content", async () => {
    model.use(
      openaiResponses((request) => {
        const prompt = promptOf(request);
        return {
          name: prompt.match(/heading "([^"]+)"/)?.[1],
          price: prompt.match(/\$\d+\.\d\d/)?.[0],
        };
      }),
    );
    const { call } = await connect();
    await call("open", { url: server.url("agent/item.html?id=oolong") });
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, price: { type: "string" } },
      required: ["name", "price"],
    };
    const result = await call("extract", { instruction: "the tea's name and price", schema });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ name: "Oolong tea", price: "$6.40" });
    expect(JSON.parse(textOf(result))).toEqual({ name: "Oolong tea", price: "$6.40" });

    model.use(openaiResponses(() => ({ extraction: "Oolong tea costs $6.40." })));
    const words = await call("extract", { instruction: "what the tea costs" });
    expect(textOf(words)).toBe("Oolong tea costs $6.40.");
  });

  it("observes: one line per element found, with the action it suits", async () => {
    model.use(
      openaiResponses((request) => ({
        elements: [
          {
            elementId: idOfLine(promptOf(request), 'button "Add a cup"'),
            description: "The Add a cup button",
            method: "click",
            arguments: [],
          },
        ],
      })),
    );
    const { call } = await connect();
    await call("open", { url: server.url("agent/counter.html") });
    expect(textOf(await call("observe", { instruction: "the button that adds a cup" }))).toBe(
      "- The Add a cup button (click)",
    );
  });

  it("runs the agent on a task, its steps told as progress notifications", async () => {
    model.use(teaAgentById());
    const { client, call } = await connect();
    await call("open", { url: server.url("agent/search.html") });
    const told: Progress[] = [];
    const result = await client.callTool(
      { name: "agent", arguments: { task: "Find the price of oolong tea", maxSteps: 10 } },
      undefined,
      { onprogress: (p) => told.push(p), resetTimeoutOnProgress: true },
    );
    expect(result.isError).toBeFalsy();
    const text = textOf(result as never);
    expect(text).toMatch(
      /^Done: The price is \$6\.40\n\(5 steps; stopped by done; the page is now .*item\.html\?id=oolong\)\n1\. outline/,
    );
    expect(told.map((p) => p.message)).toEqual(
      expect.arrayContaining([
        "Step 1 of at most 10",
        "Step 1: outline",
        "Step 2: act",
        "Step 5: done",
      ]),
    );
    for (const [i, p] of told.entries()) {
      expect(p.total).toBe(10);
      if (i > 0) expect(p.progress).toBeGreaterThan(told[i - 1]!.progress);
    }
    // The session's own tools go on where the agent left the page.
    expect(textOf(await call("read", { fresh: true }))).toContain("$6.40");
  });

  it("stops the agent when the client cancels, and answers the next call", async () => {
    // A model that thinks on and on, a little slowly.
    model.use(
      http.post("https://api.openai.com/v1/responses", async () => {
        await delay(150);
        return undefined;
      }),
      openaiAgent((turn) => ({
        calls: [call("think", { thought: `thought ${turn.history.length + 1}` })],
      })),
    );
    const { client, call: callTool } = await connect();
    await callTool("open", { url: server.url("agent/counter.html") });
    const cancel = new AbortController();
    const running = client.callTool(
      { name: "agent", arguments: { task: "Think about tea", maxSteps: 50 } },
      undefined,
      {
        signal: cancel.signal,
        onprogress: (p) => {
          if (p.progress >= 2) cancel.abort("enough");
        },
      },
    );
    await expect(running).rejects.toThrow();
    // The next call waits for the run to stop at its step's end, then answers.
    const read = await callTool("read", { fresh: true });
    expect(textOf(read)).toContain('button "Add a cup"');
    const steps = agentSteps().length;
    expect(steps).toBeGreaterThanOrEqual(2);
    expect(steps).toBeLessThan(50);
    await delay(500);
    expect(agentSteps()).toHaveLength(steps);
  });
});
