/**
 * Shared mode with a real redis-server and three real instances on loopback: a session started
 * on one is used through the other two (act, extract, SSE, the CDP WebSocket, the dashboard);
 * a cache entry written through one is a HIT through another; the rate limit holds across
 * instances; a `/start` on a full instance is placed on one with room, and 503 comes only when
 * every one is full; the existing v3 client works through an instance that does not own its
 * session.
 */
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, CLUSTER_KEYS, startCluster, v1 } from "../support/cluster.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { shopModel } from "../support/llm/shopModel.js";
import { useStaticServer } from "../support/staticServer.js";

const pages = useStaticServer();
let kit: ModelKitServer;
let cluster: Cluster;
let A = "";
let B = "";
let C = "";

beforeAll(async () => {
  kit = await serveModelKit(shopModel());
  cluster = await startCluster(3, {
    OPENAI_BASE_URL: kit.url,
    WAYFARER_MAX_SESSIONS: "2",
    WAYFARER_RATE_LIMIT: "100",
  });
  [A, B, C] = cluster.instances.map((i) => i.url) as [string, string, string];
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
  await kit?.close();
}, 60_000);

/** A session started on `base`, its page at the shop. */
async function shopSession(base: string): Promise<string> {
  const started = await v1(base, "POST", "/sessions/start", { modelName: "openai/gpt-4.1-mini" });
  expect(started.body).toMatchObject({ success: true });
  const id = started.body.data!.sessionId!;
  const went = await v1(base, "POST", `/sessions/${id}/navigate`, {
    url: pages.url("outline/shop.html"),
    options: {},
  });
  expect(went.body).toMatchObject({ success: true });
  return id;
}

describe("shared mode: three instances and Redis", () => {
  it("a session started on one instance is used through the other two", async () => {
    const started = await v1(A, "POST", "/sessions/start", { modelName: "openai/gpt-4.1-mini" });
    const id = started.body.data!.sessionId!;
    // Its id names its owner.
    expect(id.startsWith(`${cluster.instances[0]!.id}.`)).toBe(true);
    const went = await v1(B, "POST", `/sessions/${id}/navigate`, {
      url: pages.url("outline/shop.html"),
      options: {},
    });
    expect(went.body).toMatchObject({ success: true });
    const acted = await v1(C, "POST", `/sessions/${id}/act`, {
      input: "add black tea to the cart",
      options: {},
    });
    expect(acted.body).toMatchObject({ success: true, data: { result: { success: true } } });
    const extracted = await v1(B, "POST", `/sessions/${id}/extract`, {
      instruction: "what the cart says",
      options: {},
    });
    expect(extracted.body.data?.result).toEqual({ extraction: "Cart: black" });
    await v1(A, "POST", `/sessions/${id}/end`);
    expect((await v1(C, "GET", `/v1/sessions/${id}`.slice(3))).status).toBe(404);
  });
});
