/**
 * Shared mode with a real redis-server and three real instances on loopback: a session started
 * on one is used through the other two (act, extract, SSE, the CDP WebSocket, the dashboard);
 * a cache entry written through one is a HIT through another; the rate limit holds across
 * instances; a `/start` on a full instance is placed on one with room, and 503 comes only when
 * every one is full; the existing v3 client works through an instance that does not own its
 * session.
 */
import { connect } from "node:net";
import { chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { CLUSTER_KEYS, type Cluster, sessionAt, startCluster, v1 } from "../support/cluster.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { shopModel } from "../support/llm/shopModel.js";
import { freePort } from "../support/ports.js";
import { useStaticServer } from "../support/staticServer.js";
import { describeNeeding } from "../support/systemPackages.js";
import { v3ClientRun } from "../support/v3Client.js";
import { within } from "../support/waiting.js";

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
    // Placement fills every instance with one project's sessions.
    WAYFARER_PROJECT_MAX_SESSIONS: "6",
    WAYFARER_RATE_LIMIT: "100",
  });
  [A, B, C] = cluster.instances.map((i) => i.url) as [string, string, string];
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
  await kit?.close();
}, 60_000);

/** A session started on `base`, its page at the shop. */
const shopSession = (base: string) => sessionAt(base, pages.url("outline/shop.html"));

let restoreEnv: (() => void) | undefined;
beforeEach(() => {
  restoreEnv = restoreEnvAfterwards();
});
afterEach(() => restoreEnv?.());

/** The SSE frames of a streamed answer, parsed. */
async function frames(
  response: Response,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => JSON.parse(f.slice(6)));
}

/** Ends every session of the alpha project the test left (the next test needs the room). */
async function endAll(ids: string[]): Promise<void> {
  for (const id of ids) await v1(A, "POST", `/sessions/${id}/end`);
}

describeNeeding("redis-server")("shared mode: three instances and Redis", () => {
  it("a session started on one instance is used through the other two: act, extract, SSE, CDP, dashboard, replay, end", async () => {
    const started = await v1(A, "POST", "/sessions/start", { modelName: "openai/gpt-4.1-mini" });
    expect(started.body).toMatchObject({ success: true });
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

    // SSE through B: the frames as the owner wrote them, log lines and all.
    const streamed = await fetch(`${B}/v1/sessions/${id}/extract`, {
      method: "POST",
      headers: {
        "x-wf-api-key": CLUSTER_KEYS.alpha,
        "x-model-api-key": "sk-cluster-model-123456",
        "x-stream-response": "true",
        "content-type": "application/json",
      },
      body: JSON.stringify({ instruction: "what the cart says", options: {} }),
    });
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    const got = await frames(streamed);
    expect(got[0]).toMatchObject({ type: "system", data: { status: "starting" } });
    expect(got.some((f) => f.type === "log")).toBe(true);
    expect(got.at(-1)).toMatchObject({
      type: "system",
      data: { status: "finished", result: { extraction: "Cart: black" } },
    });

    // CDP: the connectUrl asked through C leads through C to A's browser.
    const platform = await v1(C, "GET", `/sessions/${id}`);
    const connectUrl = platform.body.connectUrl as string;
    expect(connectUrl.startsWith(C.replace("http", "ws"))).toBe(true);
    const browser = await chromium.connectOverCDP(connectUrl);
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      expect(page.url()).toBe(pages.url("outline/shop.html"));
      expect(await page.locator("#cart").textContent()).toBe("Cart: black");
    } finally {
      await browser.close();
    }

    // The dashboard's data through B, to the session's view token.
    const token = started.body.data!.sessionUrl!.split("#token=")[1]!;
    const view = await fetch(`${B}/dashboard/${encodeURIComponent(id)}/state`, {
      headers: { "x-wf-view-token": token },
    });
    expect(view.status).toBe(200);
    expect(JSON.stringify(await view.json())).toContain("outline/shop.html");
    const noToken = await fetch(`${C}/dashboard/${encodeURIComponent(id)}/state`);
    expect(noToken.status).toBe(404);

    const replay = await v1(C, "GET", `/sessions/${id}/replay`);
    expect(
      (replay.body.data as { pages: { actions: { method: string }[] }[] }).pages[0]!.actions.map(
        (a) => a.method,
      ),
    ).toEqual(["navigate", "act", "extract"]);

    // Ended through C: gone everywhere.
    expect((await v1(C, "POST", `/sessions/${id}/end`)).body).toEqual({ success: true, data: {} });
    for (const base of [A, B, C])
      expect((await v1(base, "GET", `/sessions/${id}`)).status).toBe(404);
  });

  it("another project's session is not found through any instance", async () => {
    const id = await shopSession(B);
    for (const base of [A, B, C]) {
      const other = await v1(base, "GET", `/sessions/${id}`, undefined, {
        "x-wf-api-key": CLUSTER_KEYS.gamma,
      });
      expect(other.status).toBe(404);
    }
    await endAll([id]);
  });

  it("a cache entry written through one instance is a HIT through another", async () => {
    const first = await shopSession(A);
    const second = await shopSession(B);
    const asked = kit.requestsTo("/v1/responses").length;
    const ask = (base: string, id: string) =>
      v1(base, "POST", `/sessions/${id}/extract`, {
        instruction: "the name of the first product",
        options: {},
      });
    const miss = await ask(C, first);
    expect(miss.headers.get("x-cache-status")).toBe("MISS");
    const hit = await ask(A, second);
    expect(hit.headers.get("x-cache-status")).toBe("HIT");
    expect(hit.body.data?.result).toEqual(miss.body.data?.result);
    // Only the miss asked the model.
    expect(kit.requestsTo("/v1/responses").length).toBe(asked + 1);
    await endAll([first, second]);
  });

  it("the rate limit holds across instances: 100 a minute for the project, wherever they land", async () => {
    // Not across a minute's boundary, where the count starts again.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const statuses = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        v1([A, B, C][i % 3]!, "GET", "/sessions/none/replay", undefined, {
          "x-wf-api-key": CLUSTER_KEYS.delta,
        }).then((r) => r.status),
      ),
    );
    // Each instance saw 40, under the limit alone: only a shared count refuses 20.
    expect(statuses.filter((s) => s === 404)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });

  it("a /start on a full instance is placed on one with room; 503 only when every one is full", async () => {
    const ids: string[] = [];
    try {
      for (let i = 0; i < 2; i++) ids.push(await shopSession(A));
      // A is full (2 sessions at most): the next start through A lands elsewhere.
      const placed = await v1(A, "POST", "/sessions/start", {});
      expect(placed.body).toMatchObject({ success: true });
      const owner = placed.body.data!.sessionId!.split(".")[0];
      ids.push(placed.body.data!.sessionId!);
      expect(owner).not.toBe(cluster.instances[0]!.id);
      // Fill the rest: six in all, then every instance is full.
      for (let i = 0; i < 3; i++) {
        const more = await v1(A, "POST", "/sessions/start", {});
        expect(more.body).toMatchObject({ success: true });
        ids.push(more.body.data!.sessionId!);
      }
      const full = await v1(B, "POST", "/sessions/start", {});
      expect(full.status).toBe(503);
      expect(full.body.message).toContain("Every instance is full");
    } finally {
      await endAll(ids);
    }
  });

  it("the existing v3 client works through an instance that does not own its session", async () => {
    // B is full, so the client's session starts elsewhere while it keeps talking to B.
    const filling = [await shopSession(B), await shopSession(B)];
    try {
      const id = await v3ClientRun(
        pages,
        B,
        kit.use,
        async (sessionId) => (await v1(C, "GET", `/sessions/${sessionId}`)).status,
        CLUSTER_KEYS.alpha,
      );
      expect(id.split(".")[0]).not.toBe(cluster.instances[1]!.id);
    } finally {
      await endAll(filling);
    }
  });

  it("a CDP upgrade names its path, never its host, and bad ones do not bring an instance down", async () => {
    const id = await shopSession(A);
    const closed = await freePort();
    // A request-target that names another host: refused before anything is forwarded, and the
    // owner is not taken for dead.
    const smuggled = await rawUpgrade(B, `//127.0.0.1:${closed}/v1/sessions/${id}/cdp`);
    expect(smuggled).toMatch(/^HTTP\/1\.1 400/);
    expect((await v1(B, "POST", `/sessions/${id}/extract`, { options: {} })).status).toBe(200);
    // Not valid percent-encoding, and a connection reset right after asking: answered, then
    // nothing; the instance serves on.
    expect(await rawUpgrade(C, "/v1/sessions/%E0/cdp")).toMatch(/^HTTP\/1\.1 401/);
    await rawUpgrade(C, "/v1/sessions/zzzzzzzzzz.nothing/cdp", { reset: true });
    expect((await fetch(`${C}/healthz`)).status).toBe(200);
    expect((await v1(C, "GET", "/sessions/%E0/replay")).status).toBe(400);
    await endAll([id]);
  });
});

/**
 * A WebSocket upgrade sent by hand on a plain socket (what a browser or `ws` would not send):
 * the first line of the answer, or "" when `reset` cuts the connection right after asking.
 */
function rawUpgrade(base: string, target: string, opts: { reset?: boolean } = {}): Promise<string> {
  const { hostname, port } = new URL(base);
  return within(
    10_000,
    `the answer to an upgrade of ${target}`,
    new Promise<string>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
        );
        if (opts.reset) {
          socket.resetAndDestroy();
          resolve("");
        }
      });
      let text = "";
      socket.on("data", (d: Buffer) => {
        text += d.toString();
      });
      socket.on("error", () => resolve(text.split("\r\n")[0] ?? ""));
      socket.on("close", () => resolve(text.split("\r\n")[0] ?? ""));
    }),
  );
}
