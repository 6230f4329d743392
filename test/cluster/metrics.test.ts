/**
 * /metrics in shared mode, with a real redis-server and two real instances on loopback: each
 * instance's cluster gauges follow the registry's heartbeats (instances, capacity, room, live),
 * a request relayed to a session's owner is counted once across the cluster (by the owner, in
 * full; by the relaying instance only as forwarded), and its request id travels with it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster, v1 } from "../support/cluster.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { shopModel } from "../support/llm/shopModel.js";
import { guideMetricNames, type Scrape, scrape } from "../support/prometheus.js";
import { useStaticServer } from "../support/staticServer.js";
import { describeNeeding } from "../support/systemPackages.js";

const TOKEN = "cluster-metrics-token-0123456789";
const pages = useStaticServer();
let kit: ModelKitServer;
let cluster: Cluster;
let A = "";
let B = "";

beforeAll(async () => {
  kit = await serveModelKit(shopModel());
  cluster = await startCluster(2, {
    OPENAI_BASE_URL: kit.url,
    WAYFARER_MAX_SESSIONS: "2",
    WAYFARER_METRICS_TOKEN: TOKEN,
  });
  [A, B] = cluster.instances.map((i) => i.url) as [string, string];
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
  await kit?.close();
}, 60_000);

const metrics = (base: string) => scrape(base, TOKEN);

/** Scrapes `base` until `check` holds (the heartbeats come every half second here). */
async function until(base: string, check: (s: Scrape) => boolean): Promise<Scrape> {
  let last: Scrape | undefined;
  await expect
    .poll(
      async () => {
        last = await metrics(base);
        return check(last);
      },
      { timeout: 15_000, interval: 200 },
    )
    .toBe(true);
  return last as Scrape;
}

const cluster4 = (live: number) => (s: Scrape) =>
  s.value("wayfarer_cluster_instances") === 2 &&
  s.value("wayfarer_cluster_sessions_capacity") === 4 &&
  s.value("wayfarer_cluster_sessions_room") === 4 - live &&
  s.value("wayfarer_cluster_sessions_live") === live;

describeNeeding("redis-server")("shared mode: /metrics on two instances", () => {
  it("the cluster's gauges follow the heartbeats, and a relayed request counts once, by its owner", async () => {
    // Both see the other, with the whole cluster's room.
    const idle = await until(A, cluster4(0));
    await until(B, cluster4(0));
    // Every cluster metric the operations guide names is there.
    const named = [...guideMetricNames()].filter((n) => n.startsWith("wayfarer_cluster_"));
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(idle.value(name), name).toBeDefined();

    const before = { A: await metrics(A), B: await metrics(B) };
    const started = await v1(A, "POST", "/sessions/start", { modelName: "openai/gpt-4.1-mini" });
    const id = started.body.data?.sessionId as string;
    expect(id).toBeTruthy();
    try {
      // B hears of A's session at A's next heartbeat.
      await until(B, cluster4(1));
      const seenByA = await until(A, cluster4(1));
      expect(seenByA.value("wayfarer_sessions_live")).toBe(1);
      expect(seenByA.value("wayfarer_sessions_room")).toBe(1);

      // Through B, which relays to A: the same request id on the answer and on the owner's frames.
      const went = await v1(
        B,
        "POST",
        `/sessions/${id}/navigate`,
        { url: pages.url("outline/shop.html"), options: {} },
        { "x-request-id": "cluster-navigate-1" },
      );
      expect(went.status).toBe(200);
      expect(went.headers.get("x-request-id")).toBe("cluster-navigate-1");
      const streamed = await fetch(`${B}/v1/sessions/${id}/extract`, {
        method: "POST",
        headers: {
          "x-wf-api-key": "key-cluster-alpha-0123456789",
          "x-model-api-key": "sk-cluster-model-123456",
          "content-type": "application/json",
          "x-stream-response": "true",
          "x-request-id": "cluster-extract-1",
        },
        body: JSON.stringify({ instruction: "what the cart says", options: {} }),
      });
      expect(streamed.headers.get("x-request-id")).toBe("cluster-extract-1");
      const frames = (await streamed.text())
        .split("\n\n")
        .filter((f) => f.startsWith("data: "))
        .map((f) => JSON.parse(f.slice(6)));
      expect(frames.at(-1).data).toMatchObject({ status: "finished" });
      const logs = frames.filter((f) => f.type === "log");
      expect(logs.length).toBeGreaterThan(0);
      for (const frame of logs) expect(frame.data.requestId).toBe("cluster-extract-1");

      const after = { A: await metrics(A), B: await metrics(B) };
      const grew = (at: "A" | "B", name: string, labels?: Record<string, string>) =>
        after[at].total(name, labels) - before[at].total(name, labels);
      // The owner ran both, and counts both; B only relayed them.
      expect(grew("A", "wayfarer_operations_total", { method: "start", outcome: "ok" })).toBe(1);
      expect(grew("A", "wayfarer_operations_total", { method: "navigate", outcome: "ok" })).toBe(1);
      expect(grew("A", "wayfarer_operations_total", { method: "extract", outcome: "ok" })).toBe(1);
      expect(grew("B", "wayfarer_operations_total")).toBe(0);
      expect(grew("B", "wayfarer_forwarded_total", { status_class: "2xx" })).toBe(2);
      expect(grew("A", "wayfarer_forwarded_total")).toBe(0);
      // The model call is the owner's too, under the project that asked.
      expect(grew("A", "wayfarer_model_calls_total", { project: "alpha" })).toBe(1);
      expect(grew("B", "wayfarer_model_calls_total")).toBe(0);
      // The cache is Redis: the lookup counted where it ran.
      expect(grew("A", "wayfarer_server_cache_lookups_total", { result: "miss" })).toBe(1);
    } finally {
      await v1(A, "POST", `/sessions/${id}/end`);
    }
    // Ended: both see the room again.
    await until(A, cluster4(0));
    await until(B, cluster4(0));
  });
});
