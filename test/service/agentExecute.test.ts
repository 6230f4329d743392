/**
 * `POST /v1/sessions/{id}/agentExecute` on the real service: the three-page tea task as one
 * JSON answer with its cache entry, the same as SSE frames with the agent's events, and a client
 * that goes away mid-run: its run stops, and the session takes the next operation.
 */
import { describe, expect, it } from "vitest";
import { call, openaiAgent } from "../support/llm/agentModel.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { teaAgent, teaExecutionModel } from "../support/llm/teaAgent.js";
import { framesOf, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

async function session(): Promise<string> {
  const started = await service.call("POST", "/v1/sessions/start", {
    body: { modelName: "openai/gpt-4.1-mini" },
    headers: { "x-model-api-key": "sk-agent-service-key-123456" },
  });
  const id = started.body.data.sessionId as string;
  await service.call("POST", `/v1/sessions/${id}/navigate`, {
    body: { url: server.url("agent/search.html"), options: {} },
  });
  return id;
}

const task = {
  agentConfig: { model: "openai/gpt-4.1-mini" },
  executeOptions: { instruction: "Find the price of oolong tea" },
};

describe("agentExecute on the service", () => {
  it("answers the AgentExecuteResponse, with a cache entry when asked", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const id = await session();
    try {
      const answer = await service.call("POST", `/v1/sessions/${id}/agentExecute`, {
        body: { ...task, shouldCache: true, frameId: null },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data.result).toMatchObject({
        success: true,
        completed: true,
        message: "The price is $6.40",
      });
      expect(answer.body.data.cacheEntry).toMatchObject({ cacheKey: expect.any(String) });
      expect(answer.body.data.actionId).toBeUndefined();
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("drops executeOptions keys it does not take, as the reference does, and says so in the session's log", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const id = await session();
    try {
      const answer = await service.call("POST", `/v1/sessions/${id}/agentExecute`, {
        // And maxSteps as a float, which the reference takes (rounded here).
        body: {
          ...task,
          executeOptions: { ...task.executeOptions, frameId: "", colour: "red", maxSteps: 19.6 },
        },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data.result).toMatchObject({ success: true, completed: true });
      const lines = service.service.sessions.find(id)!.lines.map((l) => l.message);
      expect(lines).toContain(
        "executeOptions: ignored what this service does not take: frameId, colour",
      );
      // A known option of the wrong type is still refused, naming it.
      const refused = await service.call("POST", `/v1/sessions/${id}/agentExecute`, {
        body: { ...task, executeOptions: { ...task.executeOptions, maxSteps: "many" } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain("maxSteps");
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("takes model names without a provider (the reference's older form) at /start and in agentConfig.model, with a deprecation line in the session's log", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const started = await service.call("POST", "/v1/sessions/start", {
      body: { modelName: "gpt-4.1-nano" },
      headers: { "x-model-api-key": "sk-agent-service-key-123456" },
    });
    expect(started.status).toBe(200);
    const id = started.body.data.sessionId as string;
    try {
      await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: server.url("agent/search.html"), options: {} },
      });
      for (const agentConfig of [
        {},
        { model: "gpt-4.1-mini" },
        { model: { modelName: "gpt-4.1-mini" } },
      ]) {
        // As the reference's clients do, the model key rides on every request.
        const answer = await service.call("POST", `/v1/sessions/${id}/agentExecute`, {
          body: { agentConfig, executeOptions: task.executeOptions },
          headers: { "x-model-api-key": "sk-agent-service-key-123456" },
        });
        expect(answer.status, JSON.stringify([agentConfig, answer.body])).toBe(200);
        expect(answer.body.data.result).toMatchObject({ success: true, completed: true });
        await service.call("POST", `/v1/sessions/${id}/navigate`, {
          body: { url: server.url("agent/search.html"), options: {} },
        });
      }
      // Once per model: the object with the header's key is the same model as the string.
      const lines = service.service.sessions.find(id)!.lines.map((l) => l.message);
      expect(lines.filter((l) => l.startsWith("Deprecation warning"))).toEqual([
        expect.stringContaining('"openai/gpt-4.1-nano"'),
        expect.stringContaining('"openai/gpt-4.1-mini"'),
      ]);
      // The model asked is the one named, under its provider.
      expect(model.requests().map((r) => r.body.model)).toContain("gpt-4.1-nano");
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("answers 422 for an agent the model cannot run (cua with a model that has no computer use), as the reference does", async () => {
    const id = await session();
    try {
      for (const agentConfig of [
        { cua: true, model: { modelName: "google/gemini-2.5-flash-lite", apiKey: "g-key-123" } },
        { mode: "cua", model: "openai/gpt-4.1-mini" },
      ]) {
        const answer = await service.call("POST", `/v1/sessions/${id}/agentExecute`, {
          body: { agentConfig, executeOptions: { instruction: "What is the title of this page?" } },
        });
        expect(answer.status, JSON.stringify(agentConfig)).toBe(422);
        expect(answer.body).toMatchObject({ success: false });
        expect(answer.body.message).toMatch(/computer.use/i);
      }
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("streams the run: log frames with the agent's events, then the result", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const id = await session();
    try {
      const answer = await service.call("POST", `/v1/sessions/${id}/agentExecute`, {
        body: task,
        headers: { "x-stream-response": "true" },
      });
      const frames = framesOf(answer.text);
      const events = frames.filter((f) => f.type === "log" && f.data.event);
      expect(events.length).toBeGreaterThan(3);
      expect(frames.at(-1).data).toMatchObject({
        status: "finished",
        result: { success: true, message: "The price is $6.40" },
      });
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("stops the run of a client that goes away, and the session takes the next operation", async () => {
    // A model that only ever waits: the run would take its whole maxSteps.
    model.use(openaiAgent(() => ({ calls: [call("wait", { seconds: 2 })] })));
    const id = await session();
    try {
      const gone = new AbortController();
      const started = Date.now();
      const pending = fetch(`${service.url}/v1/sessions/${id}/agentExecute`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-wf-api-key": "key-alpha-0123456789abcdef",
          "x-stream-response": "true",
        },
        body: JSON.stringify({ ...task, executeOptions: { instruction: "Wait", maxSteps: 30 } }),
        signal: gone.signal,
      }).then((r) => r.text());
      await new Promise((r) => setTimeout(r, 1_000));
      gone.abort();
      await pending.catch(() => {});
      // Free again well before 30 steps of 2 s.
      let status = 409;
      while (status === 409 && Date.now() - started < 15_000) {
        await new Promise((r) => setTimeout(r, 200));
        status = (await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} })).status;
      }
      expect(status).toBe(200);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});
