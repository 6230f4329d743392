import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Logger, type LogLine } from "../../lib/log.js";
import type { ModelConfiguration } from "../../lib/model/config.js";
import { InferenceLog } from "../../lib/model/inferenceLog.js";
import { ModelClient } from "../../lib/model/modelClient.js";
import { failure } from "../support/failure.js";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";

const server = useModelServer();
const Pick = z.object({ elementId: z.string() });
const OPENAI_KEY = "sk-proj-secret-value-9f8e7d6c5b4a";
const PROXY_TOKEN = "proxy-header-secret-1234";
const ENTRA_TOKEN = "eyJ0eXAiOiJKV1Qi.entra-secret-token";
const PEM = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .privateKey.export({ type: "pkcs8", format: "pem" })
  .toString();

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wayfarer-inference-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function setup(model: ModelConfiguration) {
  const lines: LogLine[] = [];
  const logger = new Logger({ verbose: 2, disablePino: true, logger: (l) => lines.push(l) });
  const inferenceLog = new InferenceLog(logger.redactor, dir);
  const models = new ModelClient({ model, logger, inferenceLog, env: {} });
  const ask = () =>
    models.generate({
      operation: "observe",
      system: "Find the element.",
      prompt: '[1] button "Add to cart"',
      schema: Pick,
      signal: AbortSignal.timeout(20_000),
    });
  /** Everything written: log lines, inference files. */
  const written = async () => {
    const files = await readdir(dir);
    const contents = await Promise.all(files.map((f) => readFile(join(dir, f), "utf8")));
    return { files, text: [JSON.stringify(lines), ...contents].join("\n") };
  };
  return { ask, written };
}

describe("secrets", () => {
  it("an OpenAI key and proxy header never appear in logs, inference files or errors, even when the provider echoes them", async () => {
    const { ask, written } = setup({
      modelName: "openai/gpt-4.1-mini",
      apiKey: OPENAI_KEY,
      headers: { "x-proxy-token": PROXY_TOKEN },
    });
    server.use(
      http.post(
        "https://api.openai.com/v1/responses",
        ({ request }) =>
          HttpResponse.json(
            {
              error: {
                message: `Incorrect API key provided: ${request.headers.get("authorization")} via ${request.headers.get("x-proxy-token")}`,
              },
            },
            { status: 401 },
          ),
        { once: true },
      ),
      openaiResponses((r) => ({ elementId: idOfLine(promptOf(r), "Add to cart") })),
    );
    const error = await failure(ask());
    expect(error.message).toContain("Incorrect API key provided");
    const answer = await ask();
    expect(answer.value.elementId).toBe("1");
    const { files, text } = await written();
    expect(files).toHaveLength(2);
    for (const secret of [OPENAI_KEY, PROXY_TOKEN]) {
      expect(text).not.toContain(secret);
      expect(`${error.message}\n${error.stack}`).not.toContain(secret);
    }
    expect(text).toContain("[REDACTED]");
  });

  it("an Azure Entra token and a Vertex private key never appear either", async () => {
    server.use(
      http.post("https://shop-ai.openai.azure.com/openai/v1/responses", ({ request }) =>
        HttpResponse.json(
          { error: { message: `token ${request.headers.get("authorization")} expired` } },
          { status: 401 },
        ),
      ),
      http.post("https://oauth2.googleapis.com/token", () =>
        HttpResponse.json(
          { error: "invalid_grant", error_description: `bad key ${PEM}` },
          { status: 400 },
        ),
      ),
    );
    const azure = setup({
      modelName: "gpt-4o",
      provider: "azure",
      auth: { type: "azureEntraId", token: ENTRA_TOKEN },
      providerOptions: { azure: { resourceName: "shop-ai" } },
    });
    const azureError = await failure(azure.ask());
    const vertex = setup({
      modelName: "gemini-2.5-flash",
      provider: "vertex",
      auth: {
        type: "googleServiceAccount",
        credentials: { client_email: "a@b.iam.gserviceaccount.com", private_key: PEM },
      },
      providerOptions: { vertex: { project: "p", location: "europe-west1" } },
    });
    const vertexError = await failure(vertex.ask());
    const everything = [
      (await azure.written()).text,
      (await vertex.written()).text,
      `${azureError.message}\n${azureError.stack}`,
      `${vertexError.message}\n${vertexError.stack}`,
    ].join("\n");
    expect(everything).not.toContain(ENTRA_TOKEN);
    // The key's body, not only its first line, is kept out.
    for (const line of PEM.split("\n").filter((l) => l.length > 20))
      expect(everything).not.toContain(line);
  });
});

describe("inference log", () => {
  it("writes one complete JSON file per call: operation, model, request, answer, usage", async () => {
    const { ask, written } = setup({ modelName: "openai/gpt-4.1-mini", apiKey: OPENAI_KEY });
    server.use(openaiResponses(() => ({ elementId: "1" })));
    await ask();
    const { files } = await written();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/_observe_1_\d+\.json$/);
    const record = JSON.parse(await readFile(join(dir, files[0]!), "utf8"));
    expect(record).toMatchObject({
      operation: "observe",
      model: "openai/gpt-4.1-mini",
      request: { system: "Find the element.", prompt: '[1] button "Add to cart"', images: 0 },
      response: { elementId: "1" },
      usage: { promptTokens: 120, completionTokens: 30 },
    });
  });
});
