/**
 * The server cache: a second identical extract or act on the same page is a HIT with no model
 * call (act performs the recorded action), a changed page is a MISS, the bypass headers skip it,
 * and a model key is no part of the key.
 */
import { describe, expect, it } from "vitest";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { framesOf, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

const shop = shopModel();

async function session(modelKey: string): Promise<string> {
  const started = await service.call("POST", "/v1/sessions/start", {
    body: { modelName: "openai/gpt-4.1-mini" },
    headers: { "x-model-api-key": modelKey },
  });
  return started.body.data.sessionId as string;
}

const modelCalls = () => model.requests().filter((r) => r.url.href.includes("/responses")).length;

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
