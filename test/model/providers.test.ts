import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  InvalidAISDKModelFormatError,
  LLMResponseError,
  MissingLLMConfigurationError,
  UnsupportedModelError,
} from "../../lib/index.js";
import { Logger, type LogLine } from "../../lib/log.js";
import type { ModelConfiguration } from "../../lib/model/config.js";
import { type ModelCall, ModelClient } from "../../lib/model/modelClient.js";
import { failure } from "../support/failure.js";
import { anthropicMessages } from "../support/llm/anthropic.js";
import { failing, idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { OPENAI_USAGE, openaiChat, openaiResponses } from "../support/llm/openai.js";

const server = useModelServer();
const KEY = "sk-test-key-0123456789";
const Choice = z.object({ elementId: z.string(), reason: z.string() });

const OUTLINE = 'heading "Shop"\n[1] link "Home"\n[2] button "Add to cart"\n[3] button "Checkout"';

/** Answers by reading the request: the id of the line naming what the instruction asks for. */
const pickAddToCart = (r: Parameters<Parameters<typeof openaiResponses>[0]>[0]) => ({
  elementId: idOfLine(promptOf(r), "Add to cart") ?? "none",
  reason: "it adds the item",
});

function client(
  model: ModelConfiguration | undefined,
  extra: { env?: Record<string, string>; lines?: LogLine[] } = {},
) {
  const logger = new Logger({
    verbose: 2,
    disablePino: true,
    logger: (line) => extra.lines?.push(line),
  });
  return new ModelClient({ model, logger, systemPrompt: "Be brief.", env: extra.env ?? {} });
}

function call(
  overrides: Partial<ModelCall<z.infer<typeof Choice>>> = {},
): ModelCall<z.infer<typeof Choice>> {
  return {
    operation: "act",
    system: "Pick the element the instruction means.",
    prompt: `Instruction: add the item to the cart\n\n${OUTLINE}`,
    schema: Choice,
    signal: AbortSignal.timeout(20_000),
    ...overrides,
  };
}

describe("OpenAI", () => {
  it("uses the Responses API by default: key, model, system prompt, JSON schema; answer and usage back", async () => {
    server.use(openaiResponses(pickAddToCart));
    const answer = await client({ modelName: "openai/gpt-4.1-mini", apiKey: KEY }).generate(call());
    expect(answer.value).toEqual({ elementId: "2", reason: "it adds the item" });
    expect(answer.model).toBe("openai/gpt-4.1-mini");
    expect(answer.usage).toMatchObject({
      promptTokens: OPENAI_USAGE.input,
      completionTokens: OPENAI_USAGE.output,
      reasoningTokens: OPENAI_USAGE.reasoning,
      cachedInputTokens: OPENAI_USAGE.cached,
    });
    const [request] = server.requests();
    expect(request!.url.href).toBe("https://api.openai.com/v1/responses");
    expect(request!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(request!.body.model).toBe("gpt-4.1-mini");
    expect(JSON.stringify(request!.body)).toContain(
      "Pick the element the instruction means.\\n\\nBe brief.",
    );
    const format = (request!.body.text as { format: { type: string; schema: unknown } }).format;
    expect(format.type).toBe("json_schema");
    expect(JSON.stringify(format.schema)).toContain("elementId");
  });

  it("uses chat completions with openaiEndpointFormat: chat, and reads the key from OPENAI_API_KEY", async () => {
    server.use(openaiChat(pickAddToCart));
    const answer = await client(
      { modelName: "openai/gpt-4.1-mini", openaiEndpointFormat: "chat" },
      { env: { OPENAI_API_KEY: KEY } },
    ).generate(call());
    expect(answer.value.elementId).toBe("2");
    const [request] = server.requests();
    expect(request!.url.pathname).toBe("/v1/chat/completions");
    expect(request!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect((request!.body.response_format as { type: string }).type).toBe("json_schema");
  });

  it("goes through a proxy baseURL with custom headers", async () => {
    server.use(openaiResponses(pickAddToCart, "http://127.0.0.1:9/proxy/v1"));
    await client({
      modelName: "openai/gpt-4.1-mini",
      apiKey: KEY,
      baseURL: "http://127.0.0.1:9/proxy/v1",
      headers: { "x-team": "checkout", "x-proxy-token": "proxy-secret-token" },
    }).generate(call());
    const [request] = server.requests();
    expect(request!.url.href).toBe("http://127.0.0.1:9/proxy/v1/responses");
    expect(request!.headers.get("x-team")).toBe("checkout");
    expect(request!.headers.get("x-proxy-token")).toBe("proxy-secret-token");
  });

  it("talks to an OpenAI-compatible server (Ollama) by baseURL, with a bare model name and no key", async () => {
    server.use(openaiResponses(pickAddToCart, "http://127.0.0.1:11434/v1"));
    const answer = await client({
      modelName: "qwen2.5:7b",
      baseURL: "http://127.0.0.1:11434/v1",
    }).generate(call());
    expect(answer.model).toBe("openai/qwen2.5:7b");
    expect(server.requests()[0]!.body.model).toBe("qwen2.5:7b");
  });

  it("sends images with the prompt", async () => {
    server.use(openaiResponses(pickAddToCart));
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    await client({ modelName: "openai/gpt-4.1-mini", apiKey: KEY }).generate(
      call({ images: [{ data: png, mediaType: "image/png" }] }),
    );
    const body = JSON.stringify(server.requests()[0]!.body);
    expect(body).toContain("input_image");
    expect(body).toContain(`data:image/png;base64,${Buffer.from(png).toString("base64")}`);
  });
});

describe("model names of the reference's older form (no provider)", () => {
  it("reads a bare name of a known family as its provider's, says once that the form is deprecated, and uses the provider's key", async () => {
    server.use(openaiResponses(pickAddToCart), anthropicMessages(pickAddToCart));
    const lines: LogLine[] = [];
    const openai = client("gpt-4.1-nano", { env: { OPENAI_API_KEY: KEY }, lines });
    const answer = await openai.generate(call());
    await openai.generate(call());
    expect(answer.value.elementId).toBe("2");
    expect(answer.model).toBe("openai/gpt-4.1-nano");
    const [request] = server.requests();
    expect(request!.url.href).toBe("https://api.openai.com/v1/responses");
    expect(request!.body.model).toBe("gpt-4.1-nano");
    expect(request!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    const warnings = lines.filter((l) => /Deprecation warning/.test(l.message));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain('"openai/gpt-4.1-nano"');
    const claude = await client({ modelName: "claude-3-7-sonnet-latest", apiKey: KEY }).generate(
      call(),
    );
    expect(claude.model).toBe("anthropic/claude-3-7-sonnet-latest");
    expect(server.requests()[2]!.url.href).toBe("https://api.anthropic.com/v1/messages");
  });

  it("leaves a bare name with a baseURL to that server, and a name of no known family refused", async () => {
    server.use(openaiResponses(pickAddToCart, "http://127.0.0.1:11434/v1"));
    const lines: LogLine[] = [];
    const local = client({ modelName: "gpt-oss", baseURL: "http://127.0.0.1:11434/v1" }, { lines });
    expect((await local.generate(call())).model).toBe("openai/gpt-oss");
    expect(lines.some((l) => /Deprecation/.test(l.message))).toBe(false);
    for (const name of ["cerebras-llama-3.3-70b", "o", "gpt4"]) {
      expect(await failure(client(name).generate(call())), name).toBeInstanceOf(
        InvalidAISDKModelFormatError,
      );
    }
  });
});

describe("Anthropic", () => {
  it("sends the key in x-api-key and reads a structured answer", async () => {
    server.use(anthropicMessages(pickAddToCart));
    const answer = await client("anthropic/claude-sonnet-4-5", {
      env: { ANTHROPIC_API_KEY: KEY },
    }).generate(call());
    expect(answer.value.elementId).toBe("2");
    const [request] = server.requests();
    expect(request!.url.href).toBe("https://api.anthropic.com/v1/messages");
    expect(request!.headers.get("x-api-key")).toBe(KEY);
    expect(request!.body.model).toBe("claude-sonnet-4-5");
    expect(answer.usage.promptTokens).toBeGreaterThan(0);
  });
});

describe("Azure and Microsoft", () => {
  const azureAnswer = (path: string) =>
    http.post(path, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      const text = JSON.stringify({ elementId: "2", reason: String(body.model) });
      return HttpResponse.json({
        id: "r",
        object: "response",
        created_at: 1,
        model: String(body.model),
        status: "completed",
        output: [
          {
            type: "message",
            id: "m",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text, annotations: [] }],
          },
        ],
        usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
      });
    });

  it("Azure with an API key: resourceName URL, api-version, api-key header", async () => {
    server.use(azureAnswer("https://shop-ai.openai.azure.com/openai/v1/responses"));
    await client({
      modelName: "azure/gpt-4o",
      provider: "azure",
      apiKey: KEY,
      providerOptions: { azure: { resourceName: "shop-ai", apiVersion: "preview" } },
    }).generate(call());
    const [request] = server.requests();
    expect(request!.url.searchParams.get("api-version")).toBe("preview");
    expect(request!.headers.get("api-key")).toBe(KEY);
    expect(request!.headers.get("authorization")).toBeNull();
  });

  it("Azure with an Entra token: a bearer token and no api-key header", async () => {
    server.use(azureAnswer("https://shop-ai.openai.azure.com/openai/v1/responses"));
    const token = "entra-access-token-abcdef";
    await client({
      modelName: "gpt-4o",
      provider: "azure",
      auth: { type: "azureEntraId", token },
      providerOptions: { azure: { resourceName: "shop-ai" } },
    }).generate(call());
    const [request] = server.requests();
    expect(request!.headers.get("authorization")).toBe(`Bearer ${token}`);
    expect(request!.headers.get("api-key")).toBeNull();
  });

  it("Azure with deployment-based URLs", async () => {
    server.use(azureAnswer("https://shop-ai.openai.azure.com/openai/deployments/gpt-4o/responses"));
    await client({
      modelName: "gpt-4o",
      provider: "azure",
      apiKey: KEY,
      providerOptions: { azure: { resourceName: "shop-ai", useDeploymentBasedUrls: true } },
    }).generate(call());
    expect(server.requests()[0]!.url.pathname).toBe("/openai/deployments/gpt-4o/responses");
  });

  it("Microsoft models go to their OpenAI-compatible endpoint, which must be given", async () => {
    server.use(openaiChat(pickAddToCart, "http://127.0.0.1:9/phi/v1"));
    await client({
      modelName: "microsoft/phi-4",
      baseURL: "http://127.0.0.1:9/phi/v1",
      apiKey: KEY,
    }).generate(call());
    expect(server.requests()[0]!.url.pathname).toBe("/phi/v1/chat/completions");
    const error = await failure(client("microsoft/phi-4").generate(call()));
    expect(error).toBeInstanceOf(MissingLLMConfigurationError);
    expect(error.message).toContain("model.baseURL");
  });
});

describe("configuration errors", () => {
  it("names the variable to set when a key is missing, and says when no model is configured", async () => {
    const missing = await failure(client("openai/gpt-4.1-mini").generate(call()));
    expect(missing).toBeInstanceOf(MissingLLMConfigurationError);
    expect(missing.message).toContain("OPENAI_API_KEY");
    const anthropic = await failure(client("anthropic/claude-sonnet-4-5").generate(call()));
    expect(anthropic.message).toContain("ANTHROPIC_API_KEY");
    const none = await failure(client(undefined).generate(call()));
    expect(none).toBeInstanceOf(MissingLLMConfigurationError);
    expect(server.requests()).toEqual([]);
  });

  it("refuses a name that is not provider/model, and a provider it does not know", async () => {
    expect(await failure(client("llama-3.3-70b").generate(call()))).toBeInstanceOf(
      InvalidAISDKModelFormatError,
    );
    const unknown = await failure(client("mistral/large").generate(call()));
    expect(unknown).toBeInstanceOf(UnsupportedModelError);
    expect(unknown.message).toContain(
      "openai, anthropic, google, microsoft, bedrock, vertex, azure",
    );
  });
});

describe("failures and retries", () => {
  it("retries a rate limit and a server error, then answers", async () => {
    // msw asks the handlers in order: the 500, then the 429, then the answer.
    server.use(
      failing(
        "https://api.openai.com/v1/responses",
        500,
        { error: { message: "upstream hiccup" } },
        { times: 1 },
      ),
      failing(
        "https://api.openai.com/v1/responses",
        429,
        { error: { message: "slow down" } },
        { times: 1, headers: { "retry-after-ms": "10" } },
      ),
      openaiResponses(pickAddToCart),
    );
    const lines: LogLine[] = [];
    const answer = await client(
      { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
      { lines },
    ).generate(call());
    expect(answer.value.elementId).toBe("2");
    expect(server.requests()).toHaveLength(3);
    expect(lines.filter((l) => l.message.includes("asked to retry"))).toHaveLength(2);
  });

  it("gives up after its retries with LLMResponseError: status and the provider's message", async () => {
    server.use(
      failing("https://api.openai.com/v1/responses", 503, {
        error: { message: "overloaded right now" },
      }),
    );
    const error = await failure(
      client({ modelName: "openai/gpt-4.1-mini", apiKey: KEY }).generate(call()),
    );
    expect(error).toBeInstanceOf(LLMResponseError);
    expect((error as LLMResponseError).status).toBe(503);
    expect(error.message).toContain("overloaded right now");
    expect(server.requests()).toHaveLength(4);
  });

  it("does not retry a client error", async () => {
    server.use(
      failing("https://api.openai.com/v1/responses", 400, { error: { message: "bad schema" } }),
    );
    const error = await failure(
      client({ modelName: "openai/gpt-4.1-mini", apiKey: KEY }).generate(call()),
    );
    expect((error as LLMResponseError).status).toBe(400);
    expect(server.requests()).toHaveLength(1);
  });

  it("stops waiting between retries when the call is aborted", async () => {
    server.use(failing("https://api.openai.com/v1/responses", 500, { error: { message: "down" } }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("deadline")), 100);
    const started = Date.now();
    await failure(
      client({ modelName: "openai/gpt-4.1-mini", apiKey: KEY }).generate(
        call({ signal: controller.signal }),
      ),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe("what goes where", () => {
  it("a server named only by its baseURL never gets the environment's OpenAI key", async () => {
    server.use(openaiResponses(pickAddToCart, "http://127.0.0.1:9/gpu/v1"));
    await client(
      { modelName: "llama3", baseURL: "http://127.0.0.1:9/gpu/v1" },
      { env: { OPENAI_API_KEY: KEY } },
    ).generate(call());
    expect(server.requests()[0]!.headers.get("authorization")).not.toContain(KEY);
  });

  it("the Azure and Vertex string forms say which shape to use", async () => {
    const azure = await failure(client("azure/gpt-4o").generate(call()));
    expect(azure).toBeInstanceOf(MissingLLMConfigurationError);
    expect(azure.message).toContain('provider: "azure"');
    const vertex = await failure(client("vertex/gemini-2.5-flash").generate(call()));
    expect(vertex.message).toContain('provider: "vertex"');
  });
});
