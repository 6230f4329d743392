/**
 * The model boundary of the service, against real model servers of the test's own (the model
 * kit over HTTP on loopback addresses) that record what reaches them: a caller's endpoint gets
 * the caller's key or nothing (never the operator's, which sits in the service's environment);
 * a redirect is not followed; a name that rebinds to a refused address reaches nothing; a name
 * is connected to at the address that was judged; an upstream's body never reaches the caller;
 * Azure and Vertex names are names.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpResponse, http } from "msw";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRICT_RULE } from "../../lib/net/addressRule.js";
import { useEnvVars } from "../support/env.js";
import { type ModelKitServer, serveModelKitOn } from "../support/llm/modelHttp.js";
import { openaiResponses } from "../support/llm/openai.js";
import { useService } from "../support/service.js";

const OPERATOR_KEY = "sk-operator-only-0123456789abcdef";
const CALLER_KEY = "sk-caller-own-0123456789abcdef";
const UPSTREAM_SECRET = "UPSTREAM-BODY-7f3a9c";
const REBINDING = "model.rebinding.test";
const PINNED = "model.pinned.test";

// The operator's key is in the service's environment, as OPENAI_API_KEY would be in production.
useEnvVars(() => ({ OPENAI_API_KEY: OPERATOR_KEY }));

/** Every later answer for the rebinding name is the refused address. */
let rebindAnswers = 0;
const service = useService({
  rule: {
    ...STRICT_RULE,
    // The caller's endpoint may be on 127.0.0.2; 127.0.0.1 (where the refused server is) may not.
    allowHosts: ["127.0.0.2"],
    lookup: async (host) => {
      if (host === PINNED) return ["127.0.0.2"];
      if (host === REBINDING) return rebindAnswers++ === 0 ? ["127.0.0.2"] : ["127.0.0.1"];
      return [];
    },
  },
});

let kit: ModelKitServer;
/** Listens on 127.0.0.1 at the kit's port: whatever reaches it went where it must not. */
let refused: Server;
const reachedRefused: string[] = [];

beforeAll(async () => {
  kit = await serveModelKitOn(
    "127.0.0.2",
    0,
    http.post("https://api.openai.com/redirect/responses", () =>
      HttpResponse.text(UPSTREAM_SECRET, {
        status: 307,
        headers: { location: `http://127.0.0.1:${new URL(kit.url).port}/v1/responses` },
      }),
    ),
    http.post("https://api.openai.com/failing/responses", () =>
      HttpResponse.json({ error: { message: UPSTREAM_SECRET } }, { status: 400 }),
    ),
    openaiResponses(() => ({ extraction: "answered by the caller's endpoint" })),
  );
  refused = createServer((req: IncomingMessage, res) => {
    reachedRefused.push(`${req.method} ${req.url}`);
    res.end(UPSTREAM_SECRET);
  });
  await new Promise<void>((resolve) =>
    refused.listen(Number(new URL(kit.url).port), "127.0.0.1", resolve),
  );
});
afterAll(async () => {
  await kit?.close();
  await new Promise((resolve) => refused?.close(resolve));
});

/** A session started without a model key of the caller's: the operator's pays, if anything. */
async function session(): Promise<string> {
  const started = await service.call("POST", "/v1/sessions/start", {
    body: { modelName: "openai/gpt-4.1-mini" },
  });
  expect(started.status).toBe(200);
  return started.body.data.sessionId;
}

/** An extract with this model; the server cache is bypassed, so each call reaches a model. */
const extract = (id: string, model: unknown, headers: Record<string, string> = {}) =>
  service.call("POST", `/v1/sessions/${id}/extract`, {
    body: { instruction: "the heading", options: { model } },
    headers: { "x-cache-bypass": "true", ...headers },
  });

const kitPort = () => new URL(kit.url).port;

describe("the model boundary", () => {
  it("refuses a caller's endpoint without the caller's key, naming the field; sends only the caller's key", async () => {
    const id = await session();
    try {
      const before = kit.requests().length;
      const bare = await extract(id, { modelName: "openai/gpt-4.1-mini", baseURL: kit.url });
      expect(bare.status).toBe(400);
      expect(bare.body.message).toContain("options.model.apiKey");
      expect(bare.body.message).toContain("baseURL");
      for (const model of [
        { modelName: "openai/gpt-4.1-mini", headers: { "x-route": "mine" } },
        { modelName: "gpt-4.1-mini", provider: "openai", baseURL: kit.url },
      ]) {
        const answer = await extract(id, model);
        expect(answer.status, JSON.stringify(model)).toBe(400);
      }
      // A blank key is no key: a provider package would fall back to the environment's.
      const blank = await extract(id, {
        modelName: "bedrock/anthropic.claude-3-5-sonnet",
        apiKey: "   ",
        baseURL: kit.url,
      });
      expect(blank.status).toBe(400);
      expect(blank.body.message).toContain("options.model.apiKey");
      // A model name is part of a URL path: nothing that moves it elsewhere.
      for (const modelName of ["google/../files/x", "openai/gpt?x=1", "openai/a#b"]) {
        const moved = await extract(id, modelName);
        expect(moved.status, modelName).toBe(400);
      }
      const agent = await service.call("POST", `/v1/sessions/${id}/agentExecute`, {
        body: {
          agentConfig: { executionModel: { modelName: "openai/gpt-4.1-mini", baseURL: kit.url } },
          executeOptions: { instruction: "anything", maxSteps: 1 },
        },
      });
      expect(agent.status).toBe(400);
      expect(agent.body.message).toContain("agentConfig.executionModel.apiKey");
      expect(kit.requests().length).toBe(before);

      const own = await extract(id, {
        modelName: "openai/gpt-4.1-mini",
        baseURL: kit.url,
        apiKey: CALLER_KEY,
      });
      expect(own.status).toBe(200);
      expect(own.body.data.result).toEqual({ extraction: "answered by the caller's endpoint" });
      // The key of the request's own x-model-api-key header is the caller's too.
      const header = await extract(
        id,
        { modelName: "openai/gpt-4.1-mini", baseURL: kit.url },
        { "x-model-api-key": CALLER_KEY },
      );
      expect(header.status).toBe(200);
      const sent = kit.requests().slice(before);
      expect(sent.length).toBe(2);
      for (const request of sent) {
        expect(request.headers.get("authorization")).toBe(`Bearer ${CALLER_KEY}`);
        expect(JSON.stringify([...request.headers])).not.toContain(OPERATOR_KEY);
      }
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("follows no redirect: nothing reaches the refused address, and the upstream's body stays out", async () => {
    const id = await session();
    try {
      const answer = await extract(id, {
        modelName: "openai/gpt-4.1-mini",
        baseURL: `http://127.0.0.2:${kitPort()}/redirect`,
        apiKey: CALLER_KEY,
      });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.text).not.toContain(UPSTREAM_SECRET);
      expect(answer.body.message).toContain("redirect");
      expect(reachedRefused).toEqual([]);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("answers an endpoint's failure by its status in our words, never its body", async () => {
    const id = await session();
    try {
      const answer = await extract(id, {
        modelName: "openai/gpt-4.1-mini",
        baseURL: `http://127.0.0.2:${kitPort()}/failing`,
        apiKey: CALLER_KEY,
      });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.text).not.toContain(UPSTREAM_SECRET);
      expect(answer.body.message).toContain("HTTP 400");
      // The provider refused the request itself: asking again gets the same answer.
      expect(answer.status).toBe(502);
      expect(answer.headers.get("x-should-retry")).toBe("false");
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("connects to the address it judged, and a name that rebinds to a refused one reaches nothing", async () => {
    const id = await session();
    try {
      // No resolver but the judge's knows this name: an answer proves the judged address was used.
      const pinned = await extract(id, {
        modelName: "openai/gpt-4.1-mini",
        baseURL: `http://${PINNED}:${kitPort()}/v1`,
        apiKey: CALLER_KEY,
      });
      expect(pinned.status, pinned.text).toBe(200);

      rebindAnswers = 0;
      const rebinding = await extract(id, {
        modelName: "openai/gpt-4.1-mini",
        baseURL: `http://${REBINDING}:${kitPort()}/v1`,
        apiKey: CALLER_KEY,
      });
      expect(rebindAnswers).toBeGreaterThanOrEqual(2);
      expect(rebinding.status).toBeGreaterThanOrEqual(400);
      expect(rebinding.body.message).toContain("loopback");
      expect(reachedRefused).toEqual([]);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("takes Azure resource names and Vertex projects and locations only as names", async () => {
    const id = await session();
    try {
      const port = (refused.address() as AddressInfo).port;
      const azure = await extract(id, {
        modelName: "gpt-4.1",
        provider: "azure",
        apiKey: CALLER_KEY,
        providerOptions: { azure: { resourceName: `127.0.0.1:${port}/x?` } },
      });
      expect(azure.status).toBe(400);
      expect(azure.body.message).toContain("resourceName");
      const vertex = (vertexOptions: Record<string, string>, credentials = {}) =>
        extract(id, {
          modelName: "gemini-2.5-flash",
          provider: "vertex",
          auth: {
            type: "googleServiceAccount",
            credentials: { client_email: "a@b.iam", private_key: "k", ...credentials },
          },
          providerOptions: {
            vertex: { project: "my-project-1", location: "us-central1", ...vertexOptions },
          },
        });
      const badProject = await vertex({ project: "x.127.0.0.1.nip.io/" });
      expect(badProject.status).toBe(400);
      expect(badProject.body.message).toContain("project");
      const badLocation = await vertex({ location: "127.0.0.1:9/#" });
      expect(badLocation.status).toBe(400);
      expect(badLocation.body.message).toContain("location");
      const tokenUri = await vertex({}, { token_uri: `http://127.0.0.1:${port}/token` });
      expect(tokenUri.status).toBe(400);
      expect(tokenUri.body.message).toContain("token_uri");
      expect(reachedRefused).toEqual([]);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});
