/**
 * What the remote environment costs over LOCAL on this machine, with an instant model: one
 * client of each, the same page, the same act and extract, taken in turns (local, remote, local,
 * …) so that neither always runs on a warmer machine. The service runs as `npm run service`
 * does, in its own process; both sides reach the same scripted model, the kit served over HTTP
 * on 127.0.0.1 (OPENAI_BASE_URL), so both pay the same model path. Per operation: p50 and p95 of
 * each side and of the difference. Then the job, cold (a new client and browser each time):
 * LOCAL against REMOTE, medians and their ratio. Goals (issue 18): per act or extract, added p50
 * under 15 ms and p95 under 40 ms; the job within 1.3× LOCAL.
 *
 *   npm run bench:remote        BENCH_ROUNDS=50 npm run bench:remote
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../lib/index.js";
import { resolveJob } from "../lib/job/definition.js";
import { runJob } from "../lib/job/runJob.js";
import { serveModelKit } from "../test/support/llm/modelHttp.js";
import { shopModel } from "../test/support/llm/shopModel.js";
import { startService } from "../test/support/serviceProcess.js";
import { median } from "./median.js";
import { startBenchServer } from "./snapshot/server.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const JOBS = Number(process.env.BENCH_JOBS ?? 5);
const KEY = "bench-remote-key-0123456789abcdef";
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench-remote" };

const kit = await serveModelKit(shopModel());
process.env.OPENAI_BASE_URL = kit.url;
const pages = await startBenchServer();
const shop = `${pages.origin}/fixtures/outline/shop.html`;
const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-bench-remote-"));
const service = await startService({
  WAYFARER_DATA_DIR: dataDir,
  WAYFARER_API_KEYS: `bench:${KEY}`,
  WAYFARER_ALLOW_HOSTS: "127.0.0.1",
  // Every call asks the model, as LOCAL's do.
  WAYFARER_SERVER_CACHE: "off",
  OPENAI_BASE_URL: kit.url,
});
process.env.WAYFARER_API_URL = service.url;

const quiet = { disablePino: true, verbose: 0 as const, model: MODEL };
const local = new Client({ env: "LOCAL", ...quiet });
const remote = new Client({ env: "REMOTE", apiKey: KEY, serverCache: false, ...quiet });
await Promise.all([local.init(), remote.init()]);

type Side = "local" | "remote";
type Op = "act" | "extract";
const times: Record<Side, Record<Op, number[]>> = {
  local: { act: [], extract: [] },
  remote: { act: [], extract: [] },
};
const failures: string[] = [];

async function round(side: Side, client: Client, counted: boolean): Promise<void> {
  await client.context.activePage()!.goto(shop);
  let t = performance.now();
  const acted = await client.act("add black tea to the cart");
  if (counted) times[side].act.push(performance.now() - t);
  t = performance.now();
  const read = await client.extract("what the cart says");
  if (counted) times[side].extract.push(performance.now() - t);
  if (!acted.success || !JSON.stringify(read).includes("Cart: black")) {
    failures.push(`${side}: ${JSON.stringify({ acted, read }).slice(0, 200)}`);
  }
}

// Warm-up of each, not counted.
await round("local", local, false);
await round("remote", remote, false);
for (let i = 0; i < ROUNDS; i++) {
  const order: [Side, Client][] =
    i % 2
      ? [
          ["remote", remote],
          ["local", local],
        ]
      : [
          ["local", local],
          ["remote", remote],
        ];
  for (const [side, client] of order) await round(side, client, true);
}
await Promise.all([local.close(), remote.close()]);

const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;
const f = (x: number) => x.toFixed(1).padStart(6);
console.log(
  `${ROUNDS} rounds of act + extract on one page, sides in turns, instant model over HTTP`,
);
console.log(
  "op        LOCAL p50 / p95      REMOTE p50 / p95     added p50 / p95 (goal 15 / 40 ms)",
);
for (const op of ["act", "extract"] as const) {
  const l = times.local[op];
  const r = times.remote[op];
  console.log(
    `${op.padEnd(9)} ${f(median(l))} / ${f(q(l, 0.95))} ms  ${f(median(r))} / ${f(q(r, 0.95))} ms  ${f(median(r) - median(l))} / ${f(q(r, 0.95) - q(l, 0.95))} ms`,
  );
}

// The job, cold: a new client (and browser, or session) each time, in turns.
const job = resolveJob(
  { url: shop, act: "add black tea to the cart", extract: "what the cart says", model: MODEL },
  {},
);
const jobTimes: Record<Side, number[]> = { local: [], remote: [] };
for (let i = 0; i < JOBS * 2; i++) {
  const side: Side = i % 2 === 0 ? "local" : "remote";
  if (side === "local") delete process.env.WAYFARER_API_KEY;
  else process.env.WAYFARER_API_KEY = KEY;
  const t = performance.now();
  const result = await runJob(job);
  jobTimes[side].push(performance.now() - t);
  if (result.data !== "Cart: black") failures.push(`${side} job: ${result.data}`);
}
const lj = median(jobTimes.local);
const rj = median(jobTimes.remote);
console.log(
  `job, cold, ${JOBS} each: LOCAL ${lj.toFixed(0)} ms, REMOTE ${rj.toFixed(0)} ms (median): ${(rj / lj).toFixed(2)}× (goal 1.3×)`,
);
console.log(`failed runs: ${failures.length}`);
for (const failure of failures.slice(0, 5)) console.log(`  ${failure}`);

service.child.kill("SIGTERM");
await service.exited;
await rm(dataDir, { recursive: true, force: true });
await pages.close();
await kit.close();
