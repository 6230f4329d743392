/**
 * The operator's endpoint variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL), read from the
 * environment resolveModel is given: a model without a baseURL of its own goes there, our own
 * computer-use adapter too, a model with one goes to its own, and credentials in such an
 * address are secrets. The model kit serves the endpoint over HTTP on 127.0.0.1.
 */
import type { LanguageModelV3, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import { generateText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { resolveModel } from "../../lib/model/providers.js";
import { anthropicMessages } from "../support/llm/anthropic.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { openaiResponses } from "../support/llm/openai.js";

const KEY = "sk-endpoint-variables-0123456789";

let kit: ModelKitServer | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe("provider endpoint variables", () => {
  it("sends openai/… models to OPENAI_BASE_URL with OPENAI_API_KEY, and anthropic/… to ANTHROPIC_BASE_URL", async () => {
    // The kit matches every request as if sent to api.openai.com, so Anthropic's handler is
    // given that origin.
    kit = await serveModelKit(
      openaiResponses(() => "from the operator's OpenAI endpoint"),
      anthropicMessages(
        () => "from the operator's Anthropic endpoint",
        "https://api.openai.com/v1",
      ),
    );
    const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: kit.url, ANTHROPIC_API_KEY: KEY };
    const openai = resolveModel("openai/gpt-4.1-mini", env);
    expect(JSON.parse((await generateText({ model: openai.model, prompt: "hello" })).text)).toBe(
      "from the operator's OpenAI endpoint",
    );
    const anthropic = resolveModel("anthropic/claude-sonnet-4-5", {
      ...env,
      ANTHROPIC_BASE_URL: kit.url,
    });
    expect(JSON.parse((await generateText({ model: anthropic.model, prompt: "hello" })).text)).toBe(
      "from the operator's Anthropic endpoint",
    );
    expect(kit.requests().map((r) => r.url.pathname)).toEqual(["/v1/responses", "/v1/messages"]);
    expect(kit.requests()[0]!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(kit.requests()[1]!.headers.get("x-api-key")).toBe(KEY);
  });

  it("sends OpenAI's computer-use model there too, and a model's own baseURL wins", async () => {
    kit = await serveModelKit();
    const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: kit.url };
    const { model } = resolveModel("openai/computer-use-preview", env);
    // It drives a screen only: a call with the computer tool, as the cua agent makes it. No
    // handler answers, so the kit records the request and refuses it (501), which is enough.
    const computer = { type: "function", name: "computer", inputSchema: { type: "object" } };
    await expect(
      (model as LanguageModelV3).doGenerate({
        prompt: [{ role: "user", content: [{ type: "text", text: "open the page" }] }],
        tools: [computer as LanguageModelV3FunctionTool],
      }),
    ).rejects.toThrow();
    expect(kit.unhandled()).toEqual(["POST https://api.openai.com/v1/responses"]);

    const other = await serveModelKit(openaiResponses(() => "from the model's own server"));
    try {
      const own = resolveModel({ modelName: "openai/gpt-4.1-mini", baseURL: other.url }, env);
      expect(JSON.parse((await generateText({ model: own.model, prompt: "hello" })).text)).toBe(
        "from the model's own server",
      );
      expect(other.requests()).toHaveLength(1);
      expect(kit.requests()).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it("counts credentials in the endpoint's address as secrets", () => {
    const env = {
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: "https://proxy.example/v1?api_key=proxy-secret-0123456789",
    };
    expect(resolveModel("openai/gpt-4.1-mini", env).secrets).toEqual(
      expect.arrayContaining([KEY, "proxy-secret-0123456789"]),
    );
    // Without the variable, nothing of it.
    expect(resolveModel("openai/gpt-4.1-mini", { OPENAI_API_KEY: KEY }).secrets).toEqual([KEY]);
  });
});
