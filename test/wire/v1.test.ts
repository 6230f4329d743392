/**
 * The wire schemas read what v3 clients send and what our frames carry, and hold nothing that
 * only a library caller can give.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ActRequestSchema,
  AgentExecuteRequestSchema,
  ExtractRequestSchema,
  ObserveRequestSchema,
} from "../../lib/api/operations.js";
import {
  ActBodySchema,
  AgentExecuteBodySchema,
  NavigateBodySchema,
  StartBodySchema,
  StreamFrameSchema,
} from "../../lib/api/v1.js";
import { AgentExecuteOptionsSchema, ExtractOptionsSchema } from "../../lib/options.js";

describe("v1 bodies", () => {
  it("reads the bodies a v3 client sends", () => {
    expect(
      StartBodySchema.parse({
        modelName: "openai/gpt-4.1-mini",
        domSettleTimeoutMs: 30000,
        verbose: 1,
        selfHeal: true,
        browserbaseSessionCreateParams: { region: "us-west-2" },
      }).modelName,
    ).toBe("openai/gpt-4.1-mini");
    const act = ActBodySchema.parse({
      input: "click the Sign in button",
      options: { variables: { email: "me@x.test" }, timeout: 5000 },
      frameId: "8D3C1F",
      streamResponse: true,
    });
    expect(act.input).toBe("click the Sign in button");
    expect(
      NavigateBodySchema.parse({ url: "https://x.test/", options: { waitUntil: "load" } }).url,
    ).toBe("https://x.test/");
    const agent = AgentExecuteBodySchema.parse({
      agentConfig: {},
      executeOptions: { instruction: "find the price" },
      frameId: null,
      shouldCache: true,
    });
    expect(agent.executeOptions.maxSteps).toBe(20);
  });

  it("refuses what only a library caller can give, naming it", () => {
    const page = ActRequestSchema.safeParse({ input: "x", options: { page: {} } });
    expect(page.success).toBe(false);
    expect(JSON.stringify(page.error?.issues)).toContain("page");
    const signal = AgentExecuteRequestSchema.safeParse({
      agentConfig: { stream: true },
      executeOptions: { instruction: "x" },
    });
    expect(signal.success).toBe(false);
  });

  it("has no library-only option in any request", () => {
    const libraryOnly = (schema: z.ZodType): string[] => {
      const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType> };
      const inner = (schema as { unwrap?: () => z.ZodType }).unwrap;
      if (def.type === "optional" && inner) return libraryOnly(inner.call(schema));
      if (!def.shape) return [];
      return Object.entries(def.shape).flatMap(([key, field]) => {
        const meta = z.globalRegistry.get(field) as { libraryOnly?: boolean } | undefined;
        const wrapped = (field as { unwrap?: () => z.ZodType }).unwrap?.call(field);
        const metaInside = wrapped
          ? (z.globalRegistry.get(wrapped) as { libraryOnly?: boolean } | undefined)
          : undefined;
        return meta?.libraryOnly || metaInside?.libraryOnly
          ? [key]
          : libraryOnly(field).map((k) => `${key}.${k}`);
      });
    };
    // The public schemas have them: the walk finds them there.
    expect(libraryOnly(ExtractOptionsSchema)).toEqual(["page"]);
    expect(libraryOnly(AgentExecuteOptionsSchema)).toEqual(["signal", "page", "onSafetyCheck"]);
    for (const schema of [
      ActRequestSchema,
      ObserveRequestSchema,
      ExtractRequestSchema,
      AgentExecuteRequestSchema,
    ]) {
      expect(libraryOnly(schema)).toEqual([]);
    }
  });
});

describe("frames", () => {
  it("reads each kind, with an agent event or a usage riding on a log frame", () => {
    const frames = [
      { id: "1", type: "system", data: { status: "starting" } },
      { id: "2", type: "system", data: { status: "connected" } },
      {
        id: "3",
        type: "log",
        data: {
          status: "running",
          message: { category: "agent", message: "step-start", level: 2 },
          event: { type: "step-start", step: 1 },
        },
      },
      {
        id: "4",
        type: "log",
        data: {
          status: "running",
          message: { category: "metrics", message: "act model usage", level: 2 },
          usage: {
            operation: "act",
            promptTokens: 10,
            completionTokens: 2,
            reasoningTokens: 0,
            cachedInputTokens: 0,
            inferenceTimeMs: 5,
          },
        },
      },
      { id: "5", type: "system", data: { status: "finished", result: { success: true } } },
      {
        id: "6",
        type: "system",
        data: {
          status: "error",
          error: "act: 5 ms passed waiting for the action",
          errorDetail: { name: "ServiceTimeoutError", code: "TIMEOUT", message: "act: 5 ms" },
        },
      },
    ];
    for (const frame of frames) expect(StreamFrameSchema.safeParse(frame).success).toBe(true);
    expect(StreamFrameSchema.safeParse({ id: "7", type: "log", data: {} }).success).toBe(false);
  });
});
