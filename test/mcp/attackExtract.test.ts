/**
 * extract's JSON Schema from a hostile caller: nested past any use, referring to itself, huge.
 * Each is a readable tool error before any model call, and the server answers the next call.
 */
import { describe, expect, it } from "vitest";
import { useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { useStaticServer } from "../support/staticServer.js";
import { textOf, useMcp } from "./inMemory.js";

const server = useStaticServer();
const model = useModelServer();
const mcp = useMcp();
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-mcp-attack-extract-123456" };

/** An object schema nested `depth` deep. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

const WHY = {
  nested: /nested at most 64 levels deep/,
  wide: /at most 10000 values all told/,
  looped: /without recursion, but it refers to itself/,
};

describe("extract against a hostile JSON Schema", () => {
  it("refuses one nested 10,000 deep, one referring to itself, one of 200,000 fields: no model call", async () => {
    model.use(openaiResponses(() => ({ name: "x" })));
    const { call } = await mcp.connect({ options: { model: MODEL } });
    await call("open", { url: server.url("agent/item.html?id=oolong") });
    const wide = {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 200_000 }, (_, i) => [`f${i}`, { type: "string" }]),
      ),
    };
    const looped = { type: "object", properties: { self: { $ref: "#" } } };
    for (const [what, schema] of [
      ["nested", nested(10_000)],
      ["wide", wide],
      ["looped", looped],
    ] as const) {
      const answer = await call("extract", { instruction: "the tea", schema });
      expect(answer.isError, what).toBe(true);
      expect(textOf(answer).length, what).toBeLessThan(2_000);
      expect(textOf(answer), what).toMatch(WHY[what]);
    }
    expect(model.requests()).toHaveLength(0);
    model.use(openaiResponses(() => ({ name: "Oolong tea" })));
    const fine = await call("extract", {
      instruction: "the tea's name",
      schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    });
    expect(fine.structuredContent).toEqual({ name: "Oolong tea" });
  });
});
