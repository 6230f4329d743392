import { generateKeyPairSync, verify } from "node:crypto";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Logger } from "../../lib/log.js";
import type { ModelConfiguration } from "../../lib/model/config.js";
import { ModelClient } from "../../lib/model/modelClient.js";
import { asModelRequest, promptOf, useModelServer } from "../support/llm/modelServer.js";

const server = useModelServer();
const Answer = z.object({ city: z.string() });

function ask(model: ModelConfiguration, env: Record<string, string> = {}) {
  const logger = new Logger({ verbose: 0, disablePino: true });
  return new ModelClient({ model, logger, env }).generate({
    operation: "extract",
    system: "Extract the city.",
    prompt: "The shop ships from Lyon.",
    schema: Answer,
    signal: AbortSignal.timeout(20_000),
  });
}

/** The city the prompt names: the scripted model reads it from the request. */
const cityIn = (text: string) => (text.includes("Lyon") ? "Lyon" : "unknown");

/** Gemini's generateContent answer (Google AI and Vertex share it). */
function geminiAnswer(text: string) {
  return HttpResponse.json({
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 6, totalTokenCount: 46 },
  });
}

describe("Google", () => {
  it("sends the key in x-goog-api-key and a JSON schema in generationConfig", async () => {
    server.use(
      http.post(
        "https://generativelanguage.googleapis.com/v1beta/models/:model",
        async ({ request }) => {
          const prompt = promptOf(await asModelRequest(request));
          return geminiAnswer(JSON.stringify({ city: cityIn(prompt) }));
        },
      ),
    );
    const answer = await ask("google/gemini-2.5-flash", {
      GOOGLE_GENERATIVE_AI_API_KEY: "google-key-123456",
    });
    expect(answer.value).toEqual({ city: "Lyon" });
    expect(answer.usage.promptTokens).toBe(40);
    const [request] = server.requests();
    expect(request!.url.pathname).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(request!.headers.get("x-goog-api-key")).toBe("google-key-123456");
    const config = request!.body.generationConfig as { responseMimeType: string };
    expect(config.responseMimeType).toBe("application/json");
  });
});

describe("Gemini's computer-use models outside cua", () => {
  it("answer an ordinary structured call over plain generateContent, without the computerUse tool", async () => {
    server.use(
      http.post(
        "https://generativelanguage.googleapis.com/v1beta/models/:model",
        async ({ request }) => {
          const prompt = promptOf(await asModelRequest(request));
          return geminiAnswer(JSON.stringify({ city: cityIn(prompt) }));
        },
      ),
    );
    const answer = await ask("google/gemini-2.5-computer-use-preview-10-2025", {
      GOOGLE_GENERATIVE_AI_API_KEY: "google-key-123456",
    });
    expect(answer.value).toEqual({ city: "Lyon" });
    const [request] = server.requests();
    expect(request!.url.pathname).toBe(
      "/v1beta/models/gemini-2.5-computer-use-preview-10-2025:generateContent",
    );
    expect(JSON.stringify(request!.body)).not.toContain("computerUse");
    const config = request!.body.generationConfig as { responseMimeType: string };
    expect(config.responseMimeType).toBe("application/json");
  });
});

describe("Vertex", () => {
  it("exchanges a service-account JWT, signed with its private key, for a token, and calls Vertex with it", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const clientEmail = "wayfarer@shop-project.iam.gserviceaccount.com";
    const claims: Record<string, unknown>[] = [];
    server.use(
      http.post("https://oauth2.googleapis.com/token", async ({ request }) => {
        const form = new URLSearchParams(await request.text());
        const [header, payload, signature] = (form.get("assertion") ?? "").split(".");
        const signed = verify(
          "RSA-SHA256",
          Buffer.from(`${header}.${payload}`),
          publicKey,
          Buffer.from(signature ?? "", "base64url"),
        );
        if (!signed || form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
          return HttpResponse.json({ error: "invalid_grant" }, { status: 400 });
        }
        claims.push(JSON.parse(Buffer.from(payload ?? "", "base64url").toString()));
        return HttpResponse.json({
          access_token: "ya29.vertex-test-token",
          expires_in: 3600,
          token_type: "Bearer",
        });
      }),
      http.post(
        "https://europe-west1-aiplatform.googleapis.com/v1beta1/projects/shop-project/locations/europe-west1/publishers/google/models/:model",
        async ({ request }) => {
          if (request.headers.get("authorization") !== "Bearer ya29.vertex-test-token") {
            return HttpResponse.json({ error: { message: "unauthenticated" } }, { status: 401 });
          }
          const prompt = promptOf(await asModelRequest(request));
          return geminiAnswer(JSON.stringify({ city: cityIn(prompt) }));
        },
      ),
    );
    const answer = await ask({
      modelName: "vertex/gemini-2.5-flash",
      provider: "vertex",
      auth: {
        type: "googleServiceAccount",
        credentials: { client_email: clientEmail, private_key: pem },
      },
      providerOptions: { vertex: { project: "shop-project", location: "europe-west1" } },
    });
    expect(answer.value).toEqual({ city: "Lyon" });
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({
      iss: clientEmail,
      aud: "https://oauth2.googleapis.com/token",
    });
    expect(String(claims[0]!.scope)).toContain("https://www.googleapis.com/auth/cloud-platform");
    const vertexCall = server.requestsTo("aiplatform")[0]!;
    expect(vertexCall.url.pathname).toMatch(/models\/gemini-2\.5-flash:generateContent$/);
  });
});

describe("Bedrock", () => {
  it("signs the Converse request with AWS SigV4 from the AWS_* variables", async () => {
    server.use(
      http.post(
        "https://bedrock-runtime.eu-west-3.amazonaws.com/model/:model/converse",
        async ({ request }) => {
          const req = await asModelRequest(request);
          const { body } = req;
          const prompt = promptOf(req);
          const tools = (
            (body.toolConfig as { tools?: { toolSpec: { name: string } }[] })?.tools ?? []
          ).map((t) => t.toolSpec.name);
          const value = { city: cityIn(prompt) };
          const content = tools.includes("json")
            ? [{ toolUse: { toolUseId: "t1", name: "json", input: value } }]
            : [{ text: JSON.stringify(value) }];
          return HttpResponse.json({
            output: { message: { role: "assistant", content } },
            stopReason: tools.includes("json") ? "tool_use" : "end_turn",
            usage: { inputTokens: 30, outputTokens: 5, totalTokens: 35 },
          });
        },
      ),
    );
    const secret = "fake/secret/key/for/tests/only/0000000000";
    const answer = await ask("bedrock/amazon.nova-pro-v1:0", {
      AWS_REGION: "eu-west-3",
      AWS_ACCESS_KEY_ID: "AKIAFAKEFORTESTS0001",
      AWS_SECRET_ACCESS_KEY: secret,
    });
    expect(answer.value).toEqual({ city: "Lyon" });
    const [request] = server.requests();
    expect(decodeURIComponent(request!.url.pathname)).toBe("/model/amazon.nova-pro-v1:0/converse");
    const authorization = request!.headers.get("authorization") ?? "";
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAFAKEFORTESTS0001\/\d{8}\/eu-west-3\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    expect(request!.headers.get("x-amz-date")).toMatch(/^\d{8}T\d{6}Z$/);
    expect(JSON.stringify([...request!.headers])).not.toContain(secret);
  });
});
