/**
 * Shared mode on this machine: three instances (`npm run service` each, in its own process) and
 * a redis-server, the model the kit over HTTP answering at once (as in bench:service).
 *
 * 1. Forwarding, on an idle cluster: one session on A, the same operation (extract with no
 *    instruction: the page's outline, no model) asked alternately of A directly and through B.
 *    Each answer's server-timing gives the operation's own time, so the figure is the round
 *    trip minus it; forwarded minus direct is what forwarding adds (goal: under 5 ms at p50).
 * 2. Load: SESSIONS sessions started round-robin over the three; each runs ROUNDS of act →
 *    extract, each call sent to the next instance in turn, as a round-robin balancer would
 *    (two calls in three reach an instance that forwards them). Throughput, p50/p95 of direct
 *    and forwarded calls, and the server cache's hit rate, shared through Redis.
 *    Baseline, same run: the same load on three instances with embedded state (no Redis), each
 *    call sent to the session's owner (the client knows where it lives) and each instance with
 *    its own cache folder. Each side runs twice, in the order baseline, shared, shared,
 *    baseline, each run from an empty cache.
 * 3. The cache across instances when calls arrive one after another (as scheduled jobs do):
 *    ARRIVALS sessions in turn, each on the next instance, act → extract each, hit rate shared
 *    against a cache per instance.
 *
 *   npm run bench:cluster        BENCH_SESSIONS=15 BENCH_ROUNDS=3 npm run bench:cluster
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLUSTER_KEYS, sessionAt, startCluster } from "../test/support/cluster.js";
import { serveModelKit } from "../test/support/llm/modelHttp.js";
import { shopModel } from "../test/support/llm/shopModel.js";
import { type ServiceProcess, startService } from "../test/support/serviceProcess.js";
import { median } from "./median.js";
import { startBenchServer } from "./snapshot/server.js";
import { postV1 } from "./v1Post.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const ARRIVALS = Number(process.env.BENCH_ARRIVALS ?? 12);
const KEY = CLUSTER_KEYS.alpha;

// The test kit's scripted shop model: the "Add to cart" button after the product named, the
// "Cart:" line for extract.
const kit = await serveModelKit(shopModel());
const pages = await startBenchServer();
const pageUrl = `${pages.origin}/fixtures/outline/shop.html`;
const settings = {
  OPENAI_BASE_URL: kit.url,
  WAYFARER_ALLOW_HOSTS: "127.0.0.1",
  WAYFARER_MAX_SESSIONS: String(Math.ceil(SESSIONS / 3) + 1),
  // Every session is one project's.
  WAYFARER_PROJECT_MAX_SESSIONS: String(SESSIONS),
  WAYFARER_RATE_LIMIT: "1000000",
};

interface Answer {
  ok: boolean;
  /** Round trip minus the operation's own time (its server-timing), ms. */
  share: number;
  ms: number;
  cache: string | null;
  data: unknown;
}

async function call(base: string, path: string, body: unknown): Promise<Answer> {
  const headers = { "x-wf-api-key": KEY, "x-model-api-key": "sk-bench-cluster" };
  const answer = await postV1(base, headers, path, body);
  return {
    ok: answer.json.success === true,
    share: answer.ms - (answer.own ?? 0),
    ms: answer.ms,
    cache: answer.headers.get("x-cache-status"),
    data: answer.json.data,
  };
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.95 * (xs.length - 1))]!;
const f = (x: number) => x.toFixed(1);

const startOn = (base: string) => sessionAt(base, pageUrl);

/** The load of part 2 on `bases`; `entry` picks the instance each call is sent to. */
async function load(
  bases: string[],
  entry: (session: number, call: number, owner: number) => number,
) {
  const owners = Array.from({ length: SESSIONS }, (_, i) => i % bases.length);
  const ids = await Promise.all(owners.map((o) => startOn(bases[o]!)));
  const direct: number[] = [];
  const forwarded: number[] = [];
  const cache = { HIT: 0, MISS: 0 };
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    ids.map(async (id, s) => {
      let n = 0;
      for (let r = 0; r < ROUNDS; r++) {
        for (const [op, body] of [
          ["act", { input: "add black tea to the cart", options: {} }],
          ["extract", { instruction: "what the cart says", options: {} }],
        ] as const) {
          const at = entry(s, n++, owners[s]!);
          const answer = await call(bases[at]!, `/sessions/${id}/${op}`, body);
          if (!answer.ok) failed++;
          (at === owners[s] ? direct : forwarded).push(answer.ms);
          if (answer.cache === "HIT" || answer.cache === "MISS") cache[answer.cache]++;
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(ids.map((id, s) => call(bases[owners[s]!]!, `/sessions/${id}/end`, {})));
  return { seconds, ops: SESSIONS * ROUNDS * 2, direct, forwarded, cache, failed };
}

// --- Shared mode: three instances and Redis.
const cluster = await startCluster(3, settings);
const [A, B, C] = cluster.instances.map((i) => i.url) as [string, string, string];

// 1. Forwarding on an idle cluster, pairs alternated (which goes first swaps each time).
const one = await startOn(A);
const shares = { direct: [] as number[], forwarded: [] as number[], added: [] as number[] };
for (let i = 0; i < 20; i++) await call(i % 2 ? A : B, `/sessions/${one}/extract`, { options: {} });
for (let i = 0; i < PAIRS; i++) {
  const first = i % 2 ? A : B;
  const x = await call(first, `/sessions/${one}/extract`, { options: {} });
  const y = await call(first === A ? B : A, `/sessions/${one}/extract`, { options: {} });
  const [d, fw] = first === A ? [x, y] : [y, x];
  shares.direct.push(d.share);
  shares.forwarded.push(fw.share);
  shares.added.push(fw.share - d.share);
}
await call(A, `/sessions/${one}/end`, {});

// 2. The load, round-robin over the three.
// --- Baseline: three instances with embedded state, each call sent to the owner.
const folders: string[] = [];
const alone: ServiceProcess[] = [];
for (let i = 0; i < 3; i++) {
  const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-bench-alone-"));
  folders.push(dataDir);
  alone.push(
    await startService({
      ...settings,
      WAYFARER_DATA_DIR: dataDir,
      WAYFARER_API_KEYS: `alpha:${KEY}`,
    }),
  );
}
// Each call to the next instance in turn, the turn starting at a different place for each
// session and round: a third reach the owner, and the first (cold) call of a session is no more
// often direct than any other.
const roundRobin = (s: number, n: number) => (s + n + Math.floor(s / 3)) % 3;
const toOwner = (_s: number, _n: number, owner: number) => owner;
// Both sides twice, in the order baseline, shared, shared, baseline (neither always on a warmer
// machine), each with an empty cache.
const redis = cluster.inspect();
const emptyCaches = async () => {
  const keys = await redis.keys("wayfarer:cache:*");
  if (keys.length) await redis.del(...keys);
  await Promise.all(folders.map((d) => rm(join(d, "cache"), { recursive: true, force: true })));
};
const runs: Record<"shared" | "embedded", Awaited<ReturnType<typeof load>>[]> = {
  shared: [],
  embedded: [],
};
for (const side of ["embedded", "shared", "shared", "embedded"] as const) {
  await emptyCaches();
  runs[side].push(
    side === "shared"
      ? await load([A, B, C], roundRobin)
      : await load(
          alone.map((s) => s.url),
          toOwner,
        ),
  );
}
const both = (r: Awaited<ReturnType<typeof load>>[]) => ({
  seconds: r[0]!.seconds + r[1]!.seconds,
  ops: r[0]!.ops + r[1]!.ops,
  direct: [...r[0]!.direct, ...r[1]!.direct],
  forwarded: [...r[0]!.forwarded, ...r[1]!.forwarded],
  cache: { HIT: r[0]!.cache.HIT + r[1]!.cache.HIT, MISS: r[0]!.cache.MISS + r[1]!.cache.MISS },
  failed: r[0]!.failed + r[1]!.failed,
});
const shared = both(runs.shared);
const embedded = both(runs.embedded);

// 3. The cache across instances, calls arriving one after another (as scheduled jobs do): each
// session on the next instance, one act → extract, from an empty cache.
const arriving = async (bases: string[]) => {
  await emptyCaches();
  const cache = { HIT: 0, MISS: 0 };
  for (let s = 0; s < ARRIVALS; s++) {
    const base = bases[s % bases.length]!;
    const id = await startOn(base);
    for (const [op, body] of [
      ["act", { input: "add black tea to the cart", options: {} }],
      ["extract", { instruction: "what the cart says", options: {} }],
    ] as const) {
      const answer = await call(base, `/sessions/${id}/${op}`, body);
      if (answer.cache === "HIT" || answer.cache === "MISS") cache[answer.cache]++;
    }
    await call(base, `/sessions/${id}/end`, {});
  }
  return cache;
};
const arrivals = {
  shared: await arriving([A, B, C]),
  embedded: await arriving(alone.map((s) => s.url)),
};
await cluster.stop();
await Promise.all(
  alone.map(async (s) => {
    s.child.kill("SIGTERM");
    await s.exited;
  }),
);
await Promise.all(folders.map((d) => rm(d, { recursive: true, force: true })));
await pages.close();
await kit.close();

console.log(
  `shared mode, 3 instances + redis-server on this machine (${(await import("node:os")).cpus().length} cores); the model answers at once over HTTP`,
);
console.log(
  `1. forwarding, idle cluster, ${PAIRS} pairs of the same call (extract, no model) to the owner and through another instance:`,
);
console.log(
  `   service's share (round trip minus the operation): direct p50 ${f(median(shares.direct))} / p95 ${f(p95(shares.direct))} ms; forwarded p50 ${f(median(shares.forwarded))} / p95 ${f(p95(shares.forwarded))} ms`,
);
console.log(
  `   forwarding adds p50 ${f(median(shares.added))} ms, p95 ${f(p95(shares.added))} ms (goal: under 5 ms at p50)`,
);
const line = (name: string, r: ReturnType<typeof both>) => {
  const rate = r.cache.HIT / Math.max(1, r.cache.HIT + r.cache.MISS);
  return [
    `   ${name}: ${(r.ops / r.seconds).toFixed(1)} ops/s (${r.ops} ops in ${f(r.seconds)} s), failed ${r.failed}`,
    `     direct calls p50 ${f(median(r.direct))} / p95 ${f(p95(r.direct))} ms (${r.direct.length})${r.forwarded.length ? `; forwarded p50 ${f(median(r.forwarded))} / p95 ${f(p95(r.forwarded))} ms (${r.forwarded.length})` : ""}`,
    `     server cache: ${r.cache.HIT} HIT, ${r.cache.MISS} MISS: hit rate ${(rate * 100).toFixed(0)}%`,
  ].join("\n");
};
console.log(
  `2. ${SESSIONS} sessions, ${ROUNDS} rounds of act → extract each (the same calls on the same page), each side twice (baseline, shared, shared, baseline), each run from an empty cache:`,
);
console.log(line("shared (Redis), round robin over the 3", shared));
console.log(line("baseline: 3 with embedded state, each call to its owner", embedded));
console.log(
  `   throughput shared / baseline: ${(shared.ops / shared.seconds / (embedded.ops / embedded.seconds)).toFixed(2)}×`,
);
const rate = (c: { HIT: number; MISS: number }) =>
  `${c.HIT} HIT, ${c.MISS} MISS: ${((c.HIT / Math.max(1, c.HIT + c.MISS)) * 100).toFixed(0)}%`;
console.log(
  `3. the cache across instances, ${ARRIVALS} sessions one after another, each on the next instance, act → extract each:`,
);
console.log(
  `   shared (Redis): ${rate(arrivals.shared)}; baseline (a cache per instance): ${rate(arrivals.embedded)}`,
);
