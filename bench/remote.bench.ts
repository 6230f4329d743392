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
 * With BENCH_BEFORE=<commit>, a third side, BEFORE: a REMOTE client of the service as it was at
 * that commit (bench/beforeService.ts), in the same turns (the order rotates every round), and
 * its figures next to REMOTE's: a change to the service next to its baseline.
 *
 *   npm run bench:remote        BENCH_ROUNDS=50 npm run bench:remote
 *   BENCH_BEFORE=18d00db npm run bench:remote
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
import { serviceBefore } from "./beforeService.js";
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
const serviceEnv = (dir: string) => ({
  WAYFARER_DATA_DIR: dir,
  WAYFARER_API_KEYS: `bench:${KEY}`,
  WAYFARER_ALLOW_HOSTS: "127.0.0.1",
  // Every call asks the model, as LOCAL's do.
  WAYFARER_SERVER_CACHE: "off",
  OPENAI_BASE_URL: kit.url,
});
const service = await startService(serviceEnv(dataDir));
const BEFORE = process.env.BENCH_BEFORE;
const beforeService = await serviceBefore(BEFORE, serviceEnv);

type Side = "local" | "remote" | "before";
const sides: Side[] = beforeService ? ["local", "remote", "before"] : ["local", "remote"];
/** A REMOTE client reads its service's address when it is made. */
const serviceUrl = (side: Side) => (side === "before" ? beforeService!.url : service.url);

const quiet = { disablePino: true, verbose: 0 as const, model: MODEL };
const clientOf = (side: Side) => {
  if (side === "local") return new Client({ env: "LOCAL", ...quiet });
  process.env.WAYFARER_API_URL = serviceUrl(side);
  return new Client({ env: "REMOTE", apiKey: KEY, serverCache: false, ...quiet });
};
const clients = new Map(sides.map((side) => [side, clientOf(side)] as const));
await Promise.all([...clients.values()].map((client) => client.init()));

type Op = "act" | "extract";
const times = Object.fromEntries(
  sides.map((side) => [side, { act: [] as number[], extract: [] as number[] }]),
) as Record<Side, Record<Op, number[]>>;
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

/** The sides in round i: each goes first, second, … in turn. */
const turn = (i: number) => sides.map((_, k) => sides[(i + k) % sides.length]!);

// Warm-up of each, not counted.
for (const side of sides) await round(side, clients.get(side)!, false);
for (let i = 0; i < ROUNDS; i++) {
  for (const side of turn(i)) await round(side, clients.get(side)!, true);
}
await Promise.all([...clients.values()].map((client) => client.close()));

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
if (BEFORE) {
  console.log(`REMOTE now against REMOTE at ${BEFORE} (the same turns):`);
  for (const op of ["act", "extract"] as const) {
    const r = times.remote[op];
    const b = times.before[op];
    console.log(
      `${op.padEnd(9)} before p50 / p95 ${f(median(b))} / ${f(q(b, 0.95))} ms, now / before: p50 ${(median(r) / median(b)).toFixed(3)}×, p95 ${(q(r, 0.95) / q(b, 0.95)).toFixed(3)}×`,
    );
  }
}

// The job, cold: a new client (and browser, or session) each time, in turns.
const job = resolveJob(
  { url: shop, act: "add black tea to the cart", extract: "what the cart says", model: MODEL },
  {},
);
const jobTimes = Object.fromEntries(sides.map((side) => [side, [] as number[]])) as Record<
  Side,
  number[]
>;
for (let i = 0; i < JOBS; i++) {
  for (const side of turn(i)) {
    if (side === "local") delete process.env.WAYFARER_API_KEY;
    else {
      process.env.WAYFARER_API_KEY = KEY;
      process.env.WAYFARER_API_URL = serviceUrl(side);
    }
    const t = performance.now();
    const result = await runJob(job);
    jobTimes[side].push(performance.now() - t);
    if (result.data !== "Cart: black") failures.push(`${side} job: ${result.data}`);
  }
}
const lj = median(jobTimes.local);
const rj = median(jobTimes.remote);
console.log(
  `job, cold, ${JOBS} each: LOCAL ${lj.toFixed(0)} ms, REMOTE ${rj.toFixed(0)} ms (median): ${(rj / lj).toFixed(2)}× (goal 1.3×)`,
);
if (BEFORE) {
  const bj = median(jobTimes.before);
  console.log(
    `job, cold, REMOTE at ${BEFORE}: ${bj.toFixed(0)} ms (median); now / before: ${(rj / bj).toFixed(3)}×`,
  );
}
console.log(`failed runs: ${failures.length}`);
for (const failure of failures.slice(0, 5)) console.log(`  ${failure}`);

beforeService?.child.kill("SIGTERM");
if (beforeService) await beforeService.exited;
service.child.kill("SIGTERM");
await service.exited;
await rm(dataDir, { recursive: true, force: true });
await pages.close();
await kit.close();
