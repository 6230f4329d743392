/**
 * The offline test kit itself (test/support/llm): its handlers answer what the request asks,
 * in JSON and streaming, for the APIs a fork is most likely to use.
 */
import { Output, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveModel } from "../../lib/model/providers.js";
import { anthropicMessages } from "../support/llm/anthropic.js";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiChat, openaiResponses } from "../support/llm/openai.js";

const server = useModelServer();
const env = { OPENAI_API_KEY: "sk-kit-test", ANTHROPIC_API_KEY: "sk-ant-kit-test" };
const OUTLINE = '[1] link "Home"\n[7] button "Add to cart"\n[9] button "Checkout"';
const answer = (r: Parameters<Parameters<typeof openaiResponses>[0]>[0]) => ({
  id: idOfLine(promptOf(r), "Add to cart") ?? "none",
});

const cases = [
  { name: "OpenAI Responses", model: "openai/gpt-4.1-mini", handler: openaiResponses(answer) },
  {
    name: "OpenAI Chat",
    model: { modelName: "openai/gpt-4.1-mini", openaiEndpointFormat: "chat" as const },
    handler: openaiChat(answer),
  },
  {
    name: "Anthropic Messages",
    model: "anthropic/claude-sonnet-4-5",
    handler: anthropicMessages(answer),
  },
];

describe("test kit", () => {
  for (const c of cases) {
    it(`${c.name}: streams the answer it computed from the prompt`, async () => {
      server.use(c.handler);
      const { model } = resolveModel(c.model, env);
      const result = streamText({
        model,
        prompt: `Which element adds to the cart?\n${OUTLINE}`,
        output: Output.object({ schema: z.object({ id: z.string() }) }),
      });
      let streamed = "";
      for await (const part of result.textStream) streamed += part;
      expect(JSON.parse(streamed)).toEqual({ id: "7" });
      expect(await result.output).toEqual({ id: "7" });
      expect(server.requests()).toHaveLength(1);
      expect(server.requests()[0]!.body.stream).toBe(true);
    });
  }

  it("reads prompts across request formats, and finds outline ids in them", () => {
    const chat = {
      messages: [
        { role: "system", content: "rules" },
        { role: "user", content: OUTLINE },
      ],
    };
    const responses = {
      input: [{ role: "user", content: [{ type: "input_text", text: OUTLINE }] }],
    };
    for (const body of [chat, responses]) {
      const prompt = promptOf({
        method: "POST",
        url: new URL("http://x"),
        headers: new Headers(),
        body,
      });
      expect(idOfLine(prompt, "Checkout")).toBe("9");
      expect(idOfLine(prompt, "Nothing like it")).toBeUndefined();
    }
  });
});
