/**
 * The server cache: a second identical extract or act on the same page is a HIT with no model
 * call (act performs the recorded action), a changed page is a MISS, the bypass headers skip it,
 * and a model key is no part of the key. An entry written by anyone but the service is a MISS;
 * the model that answers (the session's, when the call names none) is in the key; another
 * project never gets a HIT from a project's entries, nor from its own model endpoint.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CacheScope, serverCacheKey } from "../../lib/service/serverCache.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { framesOf, KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const dataDir = mkdtempSync(join(tmpdir(), "wayfarer-server-cache-data-"));
const service = useService({ dataDir });
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const cacheDir = join(dataDir, "cache");

const shop = shopModel();

async function session(
  modelKey: string,
  options: { modelName?: string | null; key?: string } = {},
): Promise<string> {
  const modelName = options.modelName === undefined ? "openai/gpt-4.1-mini" : options.modelName;
  const started = await service.call("POST", "/v1/sessions/start", {
    body: modelName ? { modelName } : {},
    headers: { "x-model-api-key": modelKey },
    ...(options.key ? { key: options.key } : {}),
  });
  return started.body.data.sessionId as string;
}

const modelCalls = () => model.requests().filter((r) => r.url.href.includes("/responses")).length;

const goto = (id: string, key = KEYS.alpha) =>
  service.call("POST", `/v1/sessions/${id}/navigate`, {
    body: { url: server.url("outline/shop.html"), options: {} },
    key,
  });
/** Each test asks in its own words: the file's tests share one service and its cache. */
const asker =
  (instruction: string) =>
  (id: string, options: Record<string, unknown> = {}, key = KEYS.alpha) =>
    service.call("POST", `/v1/sessions/${id}/extract`, {
      body: { instruction: `${instruction}: what the cart says`, options },
      key,
    });
const end = (id: string, key = KEYS.alpha) =>
  service.call("POST", `/v1/sessions/${id}/end`, { key });
const status = (answer: { headers: Headers }) => answer.headers.get("x-cache-status");

describe("the server cache", () => {
  it("answers a repeated extract and act from the cache, and misses once the page changed", async () => {
    model.use(shop);
    const a = await session("sk-first-key-0123456789");
    const b = await session("sk-other-key-0123456789");
    try {
      const goto = (id: string) =>
        service.call("POST", `/v1/sessions/${id}/navigate`, {
          body: { url: server.url("outline/shop.html"), options: {} },
        });
      const extract = (id: string, headers: Record<string, string> = {}) =>
        service.call("POST", `/v1/sessions/${id}/extract`, {
          body: { instruction: "what the cart says", options: {} },
          headers,
        });
      await goto(a);
      const first = await extract(a);
      expect(first.headers.get("browserbase-cache-status")).toBe("MISS");
      expect(first.body.data.result).toEqual({ extraction: "Cart: empty" });
      expect(modelCalls()).toBe(1);
      // Another session with another model key: the same page and call is a HIT.
      await goto(b);
      const second = await extract(b);
      expect(second.headers.get("browserbase-cache-status")).toBe("HIT");
      expect(second.headers.get("x-cache-status")).toBe("HIT");
      expect(second.body.data.result).toEqual({ extraction: "Cart: empty" });
      expect(modelCalls()).toBe(1);
      // The bypass header asks the model.
      const bypass = await extract(b, { "browserbase-cache-bypass": "true" });
      expect(bypass.headers.get("browserbase-cache-status")).toBeNull();
      expect(modelCalls()).toBe(2);
      // act: a MISS asks the model; on a fresh page the same act is a HIT that clicks.
      const act = (id: string) =>
        service.call("POST", `/v1/sessions/${id}/act`, {
          body: { input: "add black tea to the cart", options: {} },
        });
      const acted = await act(a);
      expect(acted.headers.get("browserbase-cache-status")).toBe("MISS");
      expect(modelCalls()).toBe(3);
      // The page changed (the cart says black): extract misses, never stale.
      const changed = await extract(a);
      expect(changed.headers.get("browserbase-cache-status")).toBe("MISS");
      expect(changed.body.data.result).toEqual({ extraction: "Cart: black" });
      expect(modelCalls()).toBe(4);
      const again = await act(b);
      expect(again.headers.get("browserbase-cache-status")).toBe("HIT");
      expect(again.body.data.result).toMatchObject({ success: true });
      expect(modelCalls()).toBe(4);
      // Streamed, a HIT says so in the finished frame.
      const streamed = await service.call("POST", `/v1/sessions/${b}/extract`, {
        body: { instruction: "what the cart says", options: {} },
        headers: { "x-stream-response": "true" },
      });
      expect(framesOf(streamed.text).at(-1).data).toMatchObject({
        status: "finished",
        cacheHit: true,
        result: { extraction: "Cart: black" },
      });
      expect(modelCalls()).toBe(4);
    } finally {
      await service.call("POST", `/v1/sessions/${a}/end`);
      await service.call("POST", `/v1/sessions/${b}/end`);
    }
  });
});

describe("the server cache's entries and keys", () => {
  it("answers a forged entry (no MAC, a wrong one) as a MISS, computes the real answer and keeps it", async () => {
    model.use(shop);
    const extract = asker("forged");
    const id = await session("sk-forge-key-0123456789");
    try {
      await goto(id);
      const before = new Set(readdirSync(cacheDir));
      const first = await extract(id);
      expect(status(first)).toBe("MISS");
      const [name] = readdirSync(cacheDir).filter((f) => !before.has(f));
      expect(name).toBeDefined();
      const file = join(cacheDir, name ?? "");
      const [header = "", body = ""] = readFileSync(file, "utf8").split("\n");
      const key = JSON.parse(header).key as string;
      const forgeries = [
        // The entry as the service kept them before they were sealed: plain JSON, no MAC.
        JSON.stringify({
          version: 1,
          key,
          value: { extraction: "Cart: forged" },
          createdAt: new Date().toISOString(),
        }),
        // The service's own entry with the value changed: the MAC no longer matches.
        `${header}\n${body.replace("Cart: empty", "Cart: forged")}`,
      ];
      let calls = modelCalls();
      for (const forged of forgeries) {
        writeFileSync(file, forged);
        const answer = await extract(id);
        expect(status(answer)).toBe("MISS");
        expect(answer.body.data.result).toEqual({ extraction: "Cart: empty" });
        expect(modelCalls()).toBe(++calls);
        // The real answer was kept in its place.
        expect(status(await extract(id))).toBe("HIT");
        expect(modelCalls()).toBe(calls);
      }
    } finally {
      await end(id);
    }
  });

  it("keys on the model that answers: a session without a model gets no HIT from one with a model", async () => {
    model.use(shop);
    const extract = asker("models");
    const withModel = await session("sk-model-key-0123456789");
    const without = await session("sk-model-key-0123456789", { modelName: null });
    const other = await session("sk-model-key-0123456789", { modelName: "openai/gpt-4.1" });
    try {
      for (const id of [withModel, without, other]) await goto(id);
      // The call names no model: the session's answers, and is in the key.
      const filled = await extract(withModel, {}, KEYS.alpha);
      expect(status(filled)).toBe("MISS");
      const calls = modelCalls();
      const none = await extract(without);
      expect(status(none)).not.toBe("HIT");
      expect(none.body.data?.result).toBeUndefined();
      expect(modelCalls()).toBe(calls);
      // Another session model: asked, not served from the first one's entry.
      const another = await extract(other);
      expect(status(another)).toBe("MISS");
      expect(modelCalls()).toBe(calls + 1);
      // A call that names the same model the first session has: the same model answers, a HIT.
      const named = await extract(without, { model: "openai/gpt-4.1-mini" });
      expect(status(named)).toBe("HIT");
      expect(named.body.data.result).toEqual({ extraction: "Cart: empty" });
      expect(modelCalls()).toBe(calls + 1);
    } finally {
      for (const id of [withModel, without, other]) await end(id);
    }
  });

  describe("across projects", () => {
    let kit: ModelKitServer;
    beforeAll(async () => {
      kit = await serveModelKit(shopModel());
    });
    afterAll(() => kit?.close());

    it("never answers another project from a project's entry, nor from its own model endpoint", async () => {
      model.use(shop);
      const extract = asker("projects");
      const alpha = await session("sk-alpha-model-0123456789");
      const beta = await session("sk-beta-model-0123456789", { key: KEYS.beta });
      try {
        await goto(alpha);
        await goto(beta, KEYS.beta);
        expect(status(await extract(alpha))).toBe("MISS");
        expect(status(await extract(alpha))).toBe("HIT");
        const calls = modelCalls();
        const betaAnswer = await extract(beta, {}, KEYS.beta);
        expect(status(betaAnswer)).toBe("MISS");
        expect(betaAnswer.body.data.result).toEqual({ extraction: "Cart: empty" });
        expect(modelCalls()).toBe(calls + 1);
        // A model endpoint of the caller's own, with its own key: a key of its own, kept per project.
        const own = {
          model: {
            modelName: "openai/gpt-4.1-mini",
            baseURL: kit.url,
            apiKey: "sk-callers-own-0123456789",
          },
        };
        const first = await extract(alpha, own);
        expect(status(first)).toBe("MISS");
        expect(kit.requestsTo("/responses")).toHaveLength(1);
        expect(status(await extract(alpha, own))).toBe("HIT");
        const other = await extract(beta, own, KEYS.beta);
        expect(status(other)).toBe("MISS");
        expect(kit.requestsTo("/responses")).toHaveLength(2);
        expect(modelCalls()).toBe(calls + 1);
      } finally {
        await end(alpha);
        await end(beta, KEYS.beta);
      }
    });
  });

  it("makes the key of the model's name and endpoint, never of its key", () => {
    const page = { url: "https://shop.test/", outline: "Cart: empty" };
    const alpha: CacheScope = { project: "alpha", sessionModel: "openai/gpt-4.1-mini" };
    const key = (options: Record<string, unknown>, scope = alpha) =>
      serverCacheKey("extract", { instruction: "the cart", options }, page, scope);
    const sessions = key({});
    expect(key({}, { ...alpha, sessionModel: undefined })).not.toBe(sessions);
    expect(key({}, { ...alpha, sessionModel: "openai/gpt-4.1" })).not.toBe(sessions);
    expect(key({}, { ...alpha, project: "beta" })).not.toBe(sessions);
    // The model the session would use, named by the call: the same model answers.
    expect(key({ model: "openai/gpt-4.1-mini" }, { ...alpha, sessionModel: undefined })).toBe(
      sessions,
    );
    const own = { modelName: "openai/gpt-4.1-mini", baseURL: "https://models.test/v1" };
    expect(key({ model: own })).not.toBe(sessions);
    expect(key({ model: { ...own, apiKey: "sk-one-0123456789" } })).toBe(key({ model: own }));
    expect(key({ model: { ...own, baseURL: "https://other.test/v1" } })).not.toBe(
      key({ model: own }),
    );
    const azure = (resourceName: string) => ({
      modelName: "gpt-4.1",
      provider: "azure",
      apiKey: "az-key-0123456789",
      providerOptions: { azure: { resourceName } },
    });
    expect(key({ model: azure("one") })).not.toBe(key({ model: azure("two") }));
    const vertex = (project: string, location: string) => ({
      modelName: "gemini-2.5-flash",
      provider: "vertex",
      providerOptions: { vertex: { project, location } },
    });
    expect(key({ model: vertex("p", "europe-west1") })).not.toBe(
      key({ model: vertex("p", "us-central1") }),
    );
    expect(key({ model: vertex("p", "europe-west1") })).not.toBe(
      key({ model: vertex("q", "europe-west1") }),
    );
    // Options that do not change the answer are left out.
    expect(key({ timeout: 5_000, serverCache: true })).toBe(sessions);
  });
});
