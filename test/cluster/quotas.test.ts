/**
 * The operator's limits in shared mode, with a real redis-server and real instances on
 * loopback: a project's sessions are one count across instances (429 on whichever instance it
 * asks, another project unaffected, ending one frees a slot, an instance that dies stops
 * counting within its TTL); a project's model tokens on the operator's key are one count too;
 * a cap read from the environment refuses with 400.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLUSTER_KEYS, type Cluster, startCluster, v1 } from "../support/cluster.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { OPENAI_USAGE } from "../support/llm/openai.js";
import { shopModel } from "../support/llm/shopModel.js";
import { useStaticServer } from "../support/staticServer.js";
import { describeNeeding } from "../support/systemPackages.js";

const OPERATOR_KEY = "sk-operator-cluster-quota-0123456789";
const CALLER_KEY = "sk-caller-cluster-quota-0123456789";
const PER_CALL = OPENAI_USAGE.input + OPENAI_USAGE.output;
const PROJECT_SESSIONS = 3;
const pages = useStaticServer();
let kit: ModelKitServer;
let cluster: Cluster;
let A = "";
let B = "";

beforeAll(async () => {
  kit = await serveModelKit(shopModel());
  cluster = await startCluster(2, {
    OPENAI_BASE_URL: kit.url,
    OPENAI_API_KEY: OPERATOR_KEY,
    WAYFARER_MAX_SESSIONS: "4",
    WAYFARER_PROJECT_MAX_SESSIONS: String(PROJECT_SESSIONS),
    WAYFARER_PROJECT_TOKENS_PER_DAY: String(2 * PER_CALL),
    WAYFARER_MAX_VIEWPORT: "1600x1000",
    // Each extract asks the model: the counts are the test's.
    WAYFARER_SERVER_CACHE: "off",
  });
  [A, B] = cluster.instances.map((i) => i.url) as [string, string];
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
  await kit?.close();
}, 60_000);

/** Starts a session through `base` for the key's project; the whole answer. */
function start(base: string, key = CLUSTER_KEYS.alpha, modelKey = "") {
  // An empty x-model-api-key is none: the operator's key pays for the session's calls.
  return v1(
    base,
    "POST",
    "/sessions/start",
    { modelName: "openai/gpt-4.1-mini" },
    {
      "x-wf-api-key": key,
      "x-model-api-key": modelKey,
    },
  );
}

async function started(base: string, key = CLUSTER_KEYS.alpha, modelKey = ""): Promise<string> {
  const answer = await start(base, key, modelKey);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data!.sessionId!;
}

const end = (id: string, key = CLUSTER_KEYS.alpha) =>
  v1(A, "POST", `/sessions/${id}/end`, undefined, { "x-wf-api-key": key });

describeNeeding("redis-server")("shared mode: the operator's limits across instances", () => {
  it("a project's sessions are one count across instances: 429 naming WAYFARER_PROJECT_MAX_SESSIONS on either; another project still starts; ending one frees a slot", async () => {
    const alpha: string[] = [];
    const gamma: string[] = [];
    try {
      alpha.push(await started(A), await started(B), await started(A));
      for (const base of [A, B]) {
        const refused = await start(base);
        expect(refused.status).toBe(429);
        expect(refused.body.message).toContain("WAYFARER_PROJECT_MAX_SESSIONS");
      }
      // Counted in Redis, one member per session.
      const redis = cluster.inspect();
      expect(await redis.zcard("wayfarer:slots:alpha")).toBe(PROJECT_SESSIONS);
      // Both instances have room: gamma is not held back by alpha.
      gamma.push(await started(B, CLUSTER_KEYS.gamma));
      // Ended through the instance that does not hold it.
      await v1(B, "POST", `/sessions/${alpha.shift()}/end`);
      alpha.push(await started(B));
      expect(await redis.zcard("wayfarer:slots:alpha")).toBe(PROJECT_SESSIONS);
    } finally {
      for (const id of alpha) await end(id);
      for (const id of gamma) await end(id, CLUSTER_KEYS.gamma);
    }
    expect(await cluster.inspect().zcard("wayfarer:slots:alpha")).toBe(0);
  });

  it("the sessions of an instance that dies stop counting within its TTL", async () => {
    const doomed = await cluster.add();
    for (let i = 0; i < PROJECT_SESSIONS; i++) await started(doomed.url);
    expect((await start(A)).status).toBe(429);
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    // WAYFARER_INSTANCE_TTL_MS is 2 s in these tests: its sessions' entries are not renewed.
    let answer = await start(A);
    const deadline = Date.now() + 15_000;
    while (answer.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      answer = await start(A);
    }
    expect(answer.status).toBe(200);
    const id = answer.body.data!.sessionId!;
    await end(id);
  });

  it("a project's model tokens on the operator's key are one count across instances; the caller's own key and other projects are not held back", async () => {
    const onA = await started(A);
    const onB = await started(B);
    const own = await started(B, CLUSTER_KEYS.alpha, CALLER_KEY);
    const gamma = await started(A, CLUSTER_KEYS.gamma);
    const extract = (base: string, id: string, key = CLUSTER_KEYS.alpha) =>
      v1(
        base,
        "POST",
        `/sessions/${id}/extract`,
        { instruction: "what is in the cart", options: {} },
        {
          "x-wf-api-key": key,
        },
      );
    const paidWith = (key: string) =>
      kit.requests().filter((r) => r.headers.get("authorization") === `Bearer ${key}`).length;
    try {
      for (const [id, key] of [
        [onA, CLUSTER_KEYS.alpha],
        [onB, CLUSTER_KEYS.alpha],
        [own, CLUSTER_KEYS.alpha],
        [gamma, CLUSTER_KEYS.gamma],
      ] as const) {
        const went = await v1(
          A,
          "POST",
          `/sessions/${id}/navigate`,
          {
            url: pages.url("outline/shop.html"),
            options: {},
          },
          { "x-wf-api-key": key },
        );
        expect(went.status).toBe(200);
      }
      const before = paidWith(OPERATOR_KEY);
      expect((await extract(A, onA)).status).toBe(200);
      expect((await extract(B, onB)).status).toBe(200);
      // Each instance spent one call's tokens: only the shared count reaches the budget.
      for (const [base, id] of [
        [A, onA],
        [A, onB],
      ] as const) {
        const refused = await extract(base, id);
        expect(refused.status).toBe(429);
        expect(refused.body.message).toContain("WAYFARER_PROJECT_TOKENS_PER_DAY");
      }
      expect(paidWith(OPERATOR_KEY) - before).toBe(2);
      const redis = cluster.inspect();
      const [day] = await redis.keys("wayfarer:tokens:alpha:day:*");
      expect(Number(await redis.get(day!))).toBe(2 * PER_CALL);
      // The caller's key pays for the session started with it; gamma's budget is its own.
      expect((await extract(A, own)).status).toBe(200);
      expect(paidWith(CALLER_KEY)).toBe(1);
      expect((await extract(B, gamma, CLUSTER_KEYS.gamma)).status).toBe(200);
      expect(Number(await redis.get(day!))).toBe(2 * PER_CALL);
    } finally {
      for (const id of [onA, onB, own]) await end(id);
      await end(gamma, CLUSTER_KEYS.gamma);
    }
  });

  it("a cap read from the environment: a viewport past WAYFARER_MAX_VIEWPORT is a 400 naming the field", async () => {
    const refused = await v1(A, "POST", "/sessions/start", {
      browserbaseSessionCreateParams: {
        browserSettings: { viewport: { width: 1920, height: 1080 } },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(
      "start body.browserbaseSessionCreateParams.browserSettings.viewport.width",
    );
    expect(refused.body.message).toContain("WAYFARER_MAX_VIEWPORT");
  });
});
