import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { APICallError } from "ai";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LLMResponseError, ZodSchemaValidationError } from "../../lib/index.js";
import { Logger } from "../../lib/log.js";
import { MetricsRecorder } from "../../lib/metrics.js";
import { InferenceLog } from "../../lib/model/inferenceLog.js";
import { ModelClient, type Operation } from "../../lib/model/modelClient.js";
import { resolveModel } from "../../lib/model/providers.js";
import { RETRY_DELAYS_MS, retryDelay } from "../../lib/model/retries.js";
import { failure } from "../support/failure.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { OPENAI_USAGE, openaiResponses } from "../support/llm/openai.js";

const server = useModelServer();
const Product = z.object({ name: z.string(), price: z.number() });

function models(metrics?: MetricsRecorder) {
  return new ModelClient({
    model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-answers-test" },
    logger: new Logger({ verbose: 0, disablePino: true }),
    onUsage: metrics ? (operation, usage) => metrics.add(operation, usage) : undefined,
  });
}
const ask = (client: ModelClient, operation: Operation = "extract") =>
  client.generate({
    operation,
    system: "Extract the product.",
    prompt: "Teapot, 24 euros",
    schema: Product,
    signal: AbortSignal.timeout(20_000),
  });

describe("answers", () => {
  it("an answer of the wrong shape is a ZodSchemaValidationError with its issues", async () => {
    server.use(openaiResponses(() => ({ name: "Teapot", price: "24 euros" })));
    const error = await failure(ask(models()));
    expect(error).toBeInstanceOf(ZodSchemaValidationError);
    expect((error as ZodSchemaValidationError).issues[0]!.path).toEqual(["price"]);
    expect(error.message).toContain("price");
  });

  it("an answer that is not JSON is an LLMResponseError", async () => {
    server.use(
      http.post("https://api.openai.com/v1/responses", () =>
        HttpResponse.json({
          id: "r",
          object: "response",
          created_at: 1,
          model: "gpt-4.1-mini",
          status: "completed",
          output: [
            {
              type: "message",
              id: "m",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "I think it is a teapot.", annotations: [] }],
            },
          ],
          usage: { input_tokens: 5, output_tokens: 5, total_tokens: 10 },
        }),
      ),
    );
    const error = await failure(ask(models()));
    expect(error).toBeInstanceOf(LLMResponseError);
    expect(error.message).toContain("did not match");
  });

  it("every answered call's usage is filed under its operation, totals included", async () => {
    server.use(openaiResponses(() => ({ name: "Teapot", price: 24 })));
    const metrics = new MetricsRecorder();
    const client = models(metrics);
    await ask(client, "extract");
    await ask(client, "act");
    await ask(client, "act");
    const m = metrics.snapshot();
    expect(m.extractPromptTokens).toBe(OPENAI_USAGE.input);
    expect(m.actPromptTokens).toBe(2 * OPENAI_USAGE.input);
    expect(m.actCompletionTokens).toBe(2 * OPENAI_USAGE.output);
    expect(m.actReasoningTokens).toBe(2 * OPENAI_USAGE.reasoning);
    expect(m.actCachedInputTokens).toBe(2 * OPENAI_USAGE.cached);
    expect(m.totalPromptTokens).toBe(3 * OPENAI_USAGE.input);
    expect(m.observePromptTokens).toBe(0);
    expect(m.totalInferenceTimeMs).toBeGreaterThanOrEqual(m.actInferenceTimeMs);
    expect(Object.keys(m)).toHaveLength(25);
  });
});

describe("which model answers", () => {
  it("llmClient replaces the client's model; a per-call model still wins", async () => {
    server.use(
      openaiResponses(
        () => ({ name: "from the custom client", price: 1 }),
        "http://127.0.0.1:9/custom/v1",
      ),
      openaiResponses(() => ({ name: "from the per-call model", price: 2 })),
    );
    const { model: custom } = resolveModel({
      modelName: "openai/house-model",
      baseURL: "http://127.0.0.1:9/custom/v1",
      apiKey: "sk-custom",
    });
    const client = new ModelClient({
      model: "anthropic/claude-sonnet-4-5",
      llmClient: custom,
      logger: new Logger({ verbose: 0, disablePino: true }),
      env: { OPENAI_API_KEY: "sk-per-call" },
    });
    const base = {
      operation: "extract" as const,
      system: "s",
      prompt: "p",
      schema: Product,
      signal: AbortSignal.timeout(20_000),
    };
    const first = await client.generate(base);
    expect(first.value.name).toBe("from the custom client");
    expect(first.model).toBe("openai.responses/house-model");
    const second = await client.generate({ ...base, model: "openai/gpt-4.1-mini" });
    expect(second.value.name).toBe("from the per-call model");
    expect(server.requests().map((r) => r.url.host)).toEqual(["127.0.0.1:9", "api.openai.com"]);
  });
});

describe("edges", () => {
  it("counts the tokens of an answer of the wrong shape", async () => {
    server.use(openaiResponses(() => ({ name: "Teapot", price: "a lot" })));
    const metrics = new MetricsRecorder();
    await failure(ask(models(metrics)));
    expect(metrics.snapshot().extractPromptTokens).toBe(OPENAI_USAGE.input);
  });

  it("an inference log that cannot be written does not fail an answered call", async () => {
    server.use(openaiResponses(() => ({ name: "Teapot", price: 24 })));
    const lines: string[] = [];
    const logger = new Logger({
      verbose: 1,
      disablePino: true,
      logger: (l) => lines.push(l.message),
    });
    // A folder inside a file: every write fails at once (ENOTDIR), as on a read-only disk.
    const file = join(await mkdtemp(join(tmpdir(), "wayfarer-ro-")), "file");
    await writeFile(file, "");
    const client = new ModelClient({
      model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-answers-test" },
      logger,
      inferenceLog: new InferenceLog(logger.redactor, join(file, "inference_summary")),
    });
    try {
      expect((await ask(client)).value).toEqual({ name: "Teapot", price: 24 });
      expect(lines).toContain("could not write the inference log");
    } finally {
      await rm(dirname(file), { recursive: true, force: true });
    }
  });

  it("follows retry-after in seconds or as a date, and gives up at once when asked to wait too long", async () => {
    const error = (headers: Record<string, string>) =>
      new APICallError({
        message: "rate limited",
        url: "https://api.openai.com/v1/responses",
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: headers,
        isRetryable: true,
      });
    const now = Date.parse("2026-11-26T00:00:00Z");
    expect(retryDelay(error({}), 0, now)).toBe(RETRY_DELAYS_MS[0]);
    expect(retryDelay(error({ "retry-after": "2" }), 0, now)).toBe(2_000);
    expect(retryDelay(error({ "retry-after-ms": "150" }), 0, now)).toBe(150);
    expect(retryDelay(error({ "retry-after": "Thu, 26 Nov 2026 00:00:03 GMT" }), 0, now)).toBe(
      3_000,
    );
    expect(retryDelay(error({ "retry-after": "60" }), 0, now)).toBeUndefined();
    expect(retryDelay(error({}), RETRY_DELAYS_MS.length, now)).toBeUndefined();
  });
});
