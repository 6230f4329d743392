import { describe, expect, it } from "vitest";
import type { LogLine } from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { OPENAI_USAGE } from "../support/llm/openai.js";
import { teaAgent, teaExecutionModel } from "../support/llm/teaAgent.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-agent-test-key-123456";

async function open(file: string, options: Record<string, unknown> = {}) {
  const client = await clients.open({
    model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
    ...options,
  });
  await client.context.activePage()!.goto(server.url(file));
  return client;
}

describe("agent (dom mode)", () => {
  it("does a three-page task: searches, opens a result and reads a value from it", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const lines: LogLine[] = [];
    const client = await open("agent/search.html", { logger: (l: LogLine) => lines.push(l) });
    const result = await client.agent().execute("Find the price of oolong tea");

    expect(result).toMatchObject({
      success: true,
      completed: true,
      message: "The price is $6.40",
    });
    expect(result.actions.map((a) => a.type)).toEqual([
      "outline",
      "act",
      "act",
      "outline",
      "act",
      "extract",
      "done",
    ]);
    const page = client.context.activePage()!;
    expect(page.url()).toBe(server.url("agent/item.html?id=oolong"));
    // Each step says what it did, where, and how long it took.
    for (const a of result.actions) expect(a.timeMs).toBeGreaterThanOrEqual(0);
    expect(result.actions[0]).toMatchObject({ pageUrl: server.url("agent/search.html") });
    expect(result.actions[0]!.pageText).toContain("Find a tea");
    expect(result.actions[1]).toMatchObject({
      instruction: "type oolong into the search field",
      success: true,
    });
    expect(result.actions[5]).toMatchObject({ extraction: "$6.40" });
    expect(result.actions[6]).toMatchObject({ taskCompleted: true, reasoning: "I have the price." });

    // 7 agent steps + 3 act calls + 1 extract call, all counted under agent.
    const calls = model.requestsTo("/responses").length;
    expect(calls).toBe(11);
    const metrics = await client.metrics;
    expect(metrics.agentPromptTokens).toBe(calls * OPENAI_USAGE.input);
    expect(metrics.actPromptTokens + metrics.extractPromptTokens).toBe(0);
    expect(result.usage).toMatchObject({
      input_tokens: calls * OPENAI_USAGE.input,
      output_tokens: calls * OPENAI_USAGE.output,
      cached_input_tokens: calls * OPENAI_USAGE.cached,
    });
    // The agent's steps are its actions, not history entries.
    expect((await client.history).filter((h) => h.method !== "navigate")).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain(KEY);
  });
});
