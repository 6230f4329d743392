/**
 * The HTTP service against real browsers on 127.0.0.1 and the model kit: health, keys and
 * projects, a session's operations as JSON and as SSE frames, bad input, the limits, and no
 * browser left behind.
 */
import { describe, expect, it } from "vitest";
import { idOfLine, instructionOf, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { waitUntilGone } from "../support/processes.js";
import { framesOf, KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService({ maxSessions: 2 });
const MODEL_KEY = "sk-service-test-key-123456";

/** A session of project alpha, with the model key in its header as v3 clients send it. */
async function start(extra: Record<string, unknown> = {}) {
  const answer = await service.call("POST", "/v1/sessions/start", {
    body: { modelName: "openai/gpt-4.1-mini", verbose: 2, ...extra },
    headers: { "x-model-api-key": MODEL_KEY },
  });
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ success: true, data: { available: true } });
  return answer.body.data.sessionId as string;
}

const end = (id: string) => service.call("POST", `/v1/sessions/${id}/end`);

describe("the service: health and keys", () => {
  it("answers health without a key, and nothing else", async () => {
    expect((await service.call("GET", "/healthz", { key: null })).body).toEqual({ ok: true });
    expect((await service.call("GET", "/readyz", { key: null })).body).toMatchObject({
      ready: true,
    });
    for (const key of [null, "wrong-key-0123456789abcdef", `${KEYS.alpha}x`]) {
      const answer = await service.call("POST", "/v1/sessions/start", { key, body: {} });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({
        success: false,
        message: "A valid API key is required in the x-wf-api-key header (or x-bb-api-key).",
      });
    }
  });

  it("serves its OpenAPI 3.1 document, generated from the wire schemas, to anyone", async () => {
    const doc = (await service.call("GET", "/v1/openapi.json", { key: null })).body;
    expect(doc).toMatchObject({ openapi: "3.1.0", info: { version: expect.any(String) } });
    expect(doc.info.description).toContain("ALPHA");
    for (const op of ["navigate", "act", "extract", "observe", "agentExecute", "end"]) {
      expect(doc.paths[`/v1/sessions/{id}/${op}`].post, op).toBeDefined();
    }
    const act = doc.paths["/v1/sessions/{id}/act"].post;
    expect(act.requestBody.content["application/json"].schema.required).toContain("input");
    expect(Object.keys(act.responses["200"].content)).toEqual([
      "application/json",
      "text/event-stream",
    ]);
  });

  it("takes the x-bb-api-key alias, and hides a session from another project", async () => {
    const id = await start();
    try {
      const other = await service.call("GET", `/v1/sessions/${id}/replay`, { key: KEYS.beta });
      expect(other.status).toBe(404);
      expect(other.body.message).toContain(`No session ${id}`);
      const alias = await service.call("GET", `/v1/sessions/${id}/replay`, {
        key: null,
        headers: { "x-bb-api-key": KEYS.alpha },
      });
      expect(alias.status).toBe(200);
    } finally {
      await end(id);
    }
  });
});

describe("the service: a session", () => {
  it("navigate → act → extract → observe → replay → end, in JSON, with the browser gone after", async () => {
    model.use(
      openaiResponses((r) =>
        instructionOf(r).includes("in the cart")
          ? { extraction: "Cart: one item" }
          : {
              elements: [
                {
                  elementId: idOfLine(promptOf(r), 'button "Add to cart"'),
                  description: "Add to cart",
                  method: "click",
                  arguments: [],
                },
              ],
            },
      ),
    );
    const id = await start();
    const pid = service.service.sessions.browserPidOf(id);
    try {
      const navigate = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: server.url("outline/shop.html"), options: {} },
      });
      expect(navigate.body).toMatchObject({ success: true, data: { result: null } });
      const act = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: { input: "add something to the cart", options: {} },
      });
      expect(act.body).toMatchObject({ success: true, data: { result: { success: true } } });
      expect(act.body.data.actionId).toEqual(expect.any(String));
      const extract = await service.call("POST", `/v1/sessions/${id}/extract`, {
        body: { instruction: "what is in the cart", options: {} },
      });
      expect(extract.body.data.result).toEqual({ extraction: "Cart: one item" });
      const observe = await service.call("POST", `/v1/sessions/${id}/observe`, { body: {} });
      expect(observe.body.data.result.length).toBeGreaterThan(3);
      // The model was asked with the session's key, which nothing sent back shows.
      const asked = model.requests().filter((r) => r.url.href.includes("/responses"));
      expect(asked[0]!.headers.get("authorization")).toBe(`Bearer ${MODEL_KEY}`);
      const replay = await service.call("GET", `/v1/sessions/${id}/replay`);
      const actions = replay.body.data.pages[0].actions;
      expect(actions.map((a: { method: string }) => a.method)).toEqual([
        "navigate",
        "act",
        "extract",
        "observe",
      ]);
      expect(actions[1].tokenUsage.inputTokens).toBeGreaterThan(0);
      expect(JSON.stringify([act.body, extract.body, replay.body])).not.toContain(MODEL_KEY);
    } finally {
      expect((await end(id)).body).toEqual({ success: true, data: {} });
    }
    expect(await waitUntilGone(pid!)).toEqual([]);
    expect((await service.call("GET", `/v1/sessions/${id}/replay`)).status).toBe(404);
  });

  it("streams data-only frames when asked, by header (which wins) or by body", async () => {
    // No self-heal: the failing act below asks no model.
    const id = await start({ selfHeal: false });
    try {
      await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: server.url("outline/shop.html"), options: {} },
      });
      const streamed = await service.call("POST", `/v1/sessions/${id}/extract`, {
        body: { options: {}, streamResponse: false },
        headers: { "x-stream-response": "true" },
      });
      expect(streamed.headers.get("content-type")).toBe("text/event-stream");
      expect(
        streamed.text
          .split("\n\n")
          .filter(Boolean)
          .every((f) => f.startsWith("data: ")),
      ).toBe(true);
      const frames = framesOf(streamed.text);
      expect(frames.slice(0, 2).map((f) => f.data.status)).toEqual(["starting", "connected"]);
      expect(frames.some((f) => f.type === "log" && f.data.message.category === "snapshot")).toBe(
        true,
      );
      expect(frames.at(-1).data).toMatchObject({ status: "finished" });
      expect(frames.at(-1).data.result.pageText).toContain("Add to cart");
      // The body's switch alone streams too; the header's false wins over the body's true.
      const byBody = await service.call("POST", `/v1/sessions/${id}/extract`, {
        body: { options: {}, streamResponse: true },
      });
      expect(framesOf(byBody.text).at(-1).data.status).toBe("finished");
      const headerOff = await service.call("POST", `/v1/sessions/${id}/extract`, {
        body: { options: {}, streamResponse: true },
        headers: { "x-stream-response": "false" },
      });
      expect(headerOff.body.success).toBe(true);
      // An error ends the stream with an error frame.
      const failed = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: {
          input: { selector: "#nope", description: "x", method: "click" },
          options: { timeout: 300 },
        },
        headers: { "x-stream-response": "true" },
      });
      expect(framesOf(failed.text).at(-1).data).toMatchObject({
        status: "finished",
        result: { success: false },
      });
      // Bad input is a 400 JSON answer before any stream starts.
      const bad = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: { input: 5 },
        headers: { "x-stream-response": "true" },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain("act body.input");
    } finally {
      await end(id);
    }
  });

  it("refuses bad input naming the field, a navigation the rule refuses, and a second operation at once", async () => {
    const id = await start();
    try {
      const bad = await service.call("POST", `/v1/sessions/${id}/act`, { body: { input: 5 } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain("act body.input");
      const notJson = await service.call("POST", `/v1/sessions/${id}/act`, { body: "{nope" });
      expect(notJson.status).toBe(400);
      expect(notJson.body).toMatchObject({
        success: false,
        message: expect.stringContaining("JSON"),
      });
      const huge = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: { input: "x".repeat(5 * 1024 * 1024) },
      });
      expect(huge.status).toBe(413);
      expect(huge.body.success).toBe(false);
      // 127.0.0.2 is loopback and not let through (only 127.0.0.1 is, in these tests).
      const refused = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: "http://127.0.0.2:9/", options: {} },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ name: "NavigationRefusedError" });
      const metadata = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: "http://[::ffff:a9fe:a9fe]/latest", options: {} },
      });
      expect(metadata.status).toBe(400);
      // A model's baseURL is a URL the caller makes the service fetch: the same rule.
      const model = { modelName: "openai/gpt-4.1-mini", baseURL: "http://127.0.0.2:1/v1" };
      const inward = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: { input: "click it", options: { model } },
      });
      expect(inward.status).toBe(400);
      expect(inward.body.message).toContain("options.model.baseURL");
      expect(inward.body.message).toContain("loopback");
      const agentInward = await service.call("POST", `/v1/sessions/${id}/agentExecute`, {
        body: {
          agentConfig: { model: { ...model, baseURL: "http://[::ffff:a9fe:a9fe]/v1" } },
          executeOptions: { instruction: "x" },
        },
        headers: { "x-stream-response": "true" },
      });
      expect(agentInward.status).toBe(400);
      expect(agentInward.body.message).toContain("agentConfig.model.baseURL");
      const slow = service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: server.url("__hang"), options: { timeout: 2_000 } },
      });
      await new Promise((r) => setTimeout(r, 300));
      const second = await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} });
      expect(second.status).toBe(409);
      expect(second.body.message).toContain("busy with navigate");
      await slow;
    } finally {
      await end(id);
    }
  });

  it("answers 503 when full, and takes a session again once one ended", async () => {
    const a = await start();
    const b = await start().catch(async (error) => {
      await end(a);
      throw error;
    });
    try {
      const full = await service.call("POST", "/v1/sessions/start", { body: {} });
      expect(full.status).toBe(503);
      expect(full.body.message).toContain("WAYFARER_MAX_SESSIONS");
    } finally {
      await end(a);
    }
    try {
      const c = await start();
      await end(c);
    } finally {
      await end(b);
    }
  });
});
