/**
 * Page snapshot, ours against the reference, in the same run: `extract()` with no arguments
 * (→ { pageText }) on generated shop pages of about 1k, 10k and 50k elements and on every
 * top-level test fixture. Per page and engine: median capture time of BENCH_RUNS calls after
 * one warm-up on an already loaded page, and the o200k token count of pageText. Prints a
 * markdown table for the README.
 *
 *   npm run bench:snapshot                      (installs bench/ dependencies when missing)
 *   BENCH_RUNS=9 BENCH_SIZES=1000,50000 npm run bench:snapshot
 */
import { execFileSync } from "node:child_process";
import { resolveExecutable } from "../../lib/browser/executable.js";
import { median } from "../median.js";
import {
  type Engine,
  installedVersion,
  type ReferenceEngine,
  type SnapshotMemory,
  STAGEHAND,
  sharedChromiumArgs,
  startStagehand,
  startWayfarer,
} from "./engines.js";
import { guardLoopback } from "./loopbackGuard.js";
import { startBenchServer, topLevelFixtures } from "./server.js";

const guard = guardLoopback();

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,50000")
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0)
  .sort((a, b) => a - b);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("BENCH_RUNS must be a positive integer");

const TOKENIZER = "gpt-tokenizer";
// Held in variables so that tsc does not look for bench/node_modules, absent on a clean clone.
const tokenizerEntry = `${TOKENIZER}/encoding/o200k_base`;
const { countTokens } = (await import(tokenizerEntry)) as { countTokens(text: string): number };

const GOALS = { tokens: 0.7, time: 0.5, largestMs: 2000 };
const LARGEST = 50_000;

interface PageCase {
  name: string;
  url: string;
  generated: boolean;
}

interface Measure {
  ms?: number;
  tokens?: number;
  error?: string;
}

interface PageResult {
  page: PageCase;
  elements: number;
  ours: Measure;
  reference: Measure;
  /** Generated pages: memory of our snapshot (median of 3). */
  memory?: SnapshotMemory;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

const executable = await resolveExecutable({ headful: false });
// The pack's Chromium needs its bundled libraries; chrome-launcher (Stagehand) only passes the
// process environment on, and our client adds nothing for an explicit executablePath.
Object.assign(process.env, executable.env);

/** Processes running the bench's binary, or Stagehand's crash-cleanup supervisor. */
function leftovers(): Set<string> {
  const found = new Set<string>();
  for (const pattern of [executable.path, "supervisor-config="]) {
    try {
      const out = execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" });
      for (const pid of out.split("\n").filter(Boolean)) found.add(pid);
    } catch {
      // pgrep exits 1 when nothing matches
    }
  }
  return found;
}
const runningBefore = leftovers();

const server = await startBenchServer();
const fixtures = await topLevelFixtures();
const pages: PageCase[] = [
  ...SIZES.map((n) => ({
    name: `generated ${n >= 1000 ? `${n / 1000}k` : n}`,
    url: `${server.origin}/generated/shop-${n}.html`,
    generated: true,
  })),
  // Fixtures that embed a cross-site frame read its origin from ?other= (as the tests pass it).
  ...fixtures.map((f) => ({
    name: f,
    url: `${server.origin}/fixtures/${f}?other=${encodeURIComponent(`${server.otherSite}/fixtures`)}`,
    generated: false,
  })),
];

const sharedArgs = await sharedChromiumArgs();
const engines: Engine[] = [];
let ours: Awaited<ReturnType<typeof startWayfarer>> | undefined;
let reference: ReferenceEngine | undefined;
const results: PageResult[] = [];
const RELOADS = 20;
const overTime: { engine: string; fresh: number; later: number }[] = [];
let chromium = "unknown";
let referenceChromium = "unknown";
try {
  ours = await startWayfarer(executable);
  engines.push(ours);
  reference = await startStagehand(executable, sharedArgs);
  engines.push(reference);
  chromium = await ours.browserVersion();

  for (const [k, page] of pages.entries()) {
    // Alternate which engine goes first, so that machine noise does not favour one of them.
    const order = k % 2 === 0 ? [ours, reference] : [reference, ours];
    progress(`${page.name}: loading`);
    for (const e of order) await e.goto(page.url);
    if (k === 0) referenceChromium = await reference.browserVersion();
    const elements = await ours.evaluate<number>("document.getElementsByTagName('*').length");
    const times = new Map<Engine, number[]>(order.map((e) => [e, []]));
    const texts = new Map<Engine, string>();
    const errors = new Map<Engine, string>();
    const capture = async (e: Engine, timed: boolean) => {
      if (!e.snapshot || errors.has(e)) return;
      try {
        const t0 = performance.now();
        const text = await e.snapshot();
        const ms = performance.now() - t0;
        if (timed) times.get(e)!.push(ms);
        texts.set(e, text);
      } catch (error) {
        errors.set(e, error instanceof Error ? error.message : String(error));
      }
    };
    for (const e of order) await capture(e, false);
    for (let i = 0; i < RUNS; i++) {
      for (const e of i % 2 === 0 ? order : [...order].reverse()) await capture(e, true);
    }
    const measure = (e: Engine): Measure => {
      const error = errors.get(e);
      if (error) return { error };
      const text = texts.get(e);
      if (text === undefined) return {};
      return { ms: median(times.get(e)!), tokens: countTokens(text) };
    };
    let memory: SnapshotMemory | undefined;
    if (page.generated) {
      const samples: SnapshotMemory[] = [];
      for (let i = 0; i < 3; i++) samples.push(await ours.snapshotMemory());
      memory = {
        page: median(samples.map((s) => s.page)),
        node: median(samples.map((s) => s.node)),
      };
    }
    results.push({ page, elements, ours: measure(ours), reference: measure(reference), memory });
    const r = results.at(-1)!;
    progress(
      `${page.name}: ${elements} elements; wayfarer ${fmtMs(r.ours)}; stagehand ${fmtMs(r.reference)}`,
    );
  }

  // Frames over time: the same 20-frame page loaded again and again in one tab must not make
  // each capture cost more (the reference's bookkeeping kept every frame it ever saw).
  const twenty = pages.find((p) => p.name === "outline/twenty-frames.html");
  if (twenty) {
    for (const e of [ours, reference]) {
      const timesAfter = async () => {
        const ts: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const t0 = performance.now();
          await e.snapshot?.();
          ts.push(performance.now() - t0);
        }
        return median(ts);
      };
      await e.goto(twenty.url);
      await e.snapshot?.();
      const fresh = await timesAfter();
      for (let i = 0; i < RELOADS; i++) await e.goto(twenty.url);
      await e.snapshot?.();
      const later = await timesAfter();
      overTime.push({ engine: e.name, fresh, later });
      progress(`frames over time, ${e.name}: ${fresh.toFixed(0)} ms → ${later.toFixed(0)} ms`);
    }
  }
} finally {
  for (const e of engines) await e.close().catch((error) => progress(`close: ${error}`));
  await server.close();
}
const modelUsage = reference ? await reference.modelUsage() : undefined;

function fmtMs(m: Measure): string {
  if (m.error) return "error";
  if (m.ms === undefined) return "n/a (not implemented)";
  return m.ms < 10 ? m.ms.toFixed(1) : m.ms.toFixed(0);
}
const fmtTokens = (m: Measure) =>
  m.error ? "error" : m.tokens === undefined ? "n/a" : String(m.tokens);
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? undefined : a / b;
const fmtRatio = (x: number | undefined) => (x === undefined ? "n/a" : `${x.toFixed(2)}×`);
const verdict = (ok: boolean | undefined) => (ok === undefined ? "n/a" : ok ? "met" : "missed");

const [stagehandVersion, tokenizerVersion] = await Promise.all([
  installedVersion(STAGEHAND),
  installedVersion(TOKENIZER),
]);
const out: string[] = [];
out.push(
  `Page snapshot, \`extract()\` with no arguments: median of ${RUNS} calls after one warm-up, page loaded.`,
  "",
  `- reference: ${STAGEHAND} ${stagehandVersion}`,
  `- Chromium ${chromium}${referenceChromium !== chromium ? ` (reference reports ${referenceChromium})` : ""}, ${executable.source}: ${executable.path}, same command line for both`,
  `- Node ${process.version}, ${process.platform}/${process.arch}`,
  `- tokens: o200k_base (${TOKENIZER} ${tokenizerVersion}) of pageText`,
  "",
  "| page | elements | wayfarer ms | stagehand ms | time ×ref (goal ≤ 0.5) | wayfarer tokens | stagehand tokens | tokens ×ref (goal ≤ 0.7) |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
);
for (const r of results) {
  out.push(
    `| ${r.page.name} | ${r.elements} | ${fmtMs(r.ours)} | ${fmtMs(r.reference)} | ${fmtRatio(ratio(r.ours.ms, r.reference.ms))} | ${fmtTokens(r.ours)} | ${fmtTokens(r.reference)} | ${fmtRatio(ratio(r.ours.tokens, r.reference.tokens))} |`,
  );
}

const generated = results.filter((r) => r.page.generated);
const first = generated[0];
const last = generated.at(-1);
const growth = (m: (r: PageResult) => Measure, k: "ms" | "tokens") =>
  first && last && first !== last ? ratio(m(last)[k], m(first)[k]) : undefined;
const elementGrowth = first && last && first !== last ? last.elements / first.elements : undefined;
if (first && last && first !== last) {
  out.push(
    "",
    `Growth ${first.page.name.replace("generated ", "")} → ${last.page.name.replace("generated ", "")} (goal: time grows no faster than elements, ${fmtRatio(elementGrowth)}):`,
    "",
    "| engine | time growth | tokens growth |",
    "| --- | ---: | ---: |",
    `| wayfarer | ${fmtRatio(growth((r) => r.ours, "ms"))} | ${fmtRatio(growth((r) => r.ours, "tokens"))} |`,
    `| stagehand | ${fmtRatio(growth((r) => r.reference, "ms"))} | ${fmtRatio(growth((r) => r.reference, "tokens"))} |`,
  );
}
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
if (generated.some((r) => r.memory)) {
  out.push(
    "",
    "Memory of one Wayfarer snapshot (heap growth across it after a collection, median of 3):",
    "",
    "| page | elements | page JS heap | Node heap |",
    "| --- | ---: | ---: | ---: |",
    ...generated.map(
      (r) =>
        `| ${r.page.name} | ${r.elements} | ${r.memory ? mb(r.memory.page) : "n/a"} | ${r.memory ? mb(r.memory.node) : "n/a"} |`,
    ),
  );
}

if (overTime.length) {
  out.push(
    "",
    `Frames over time: capture of outline/twenty-frames.html (median of ${RUNS}) after one load, and after ${RELOADS} more loads of it in the same tab:`,
    "",
    `| engine | after 1 load | after ${RELOADS} more | × |`,
    "| --- | ---: | ---: | ---: |",
    ...overTime.map(
      (o) =>
        `| ${o.engine} | ${o.fresh.toFixed(0)} ms | ${o.later.toFixed(0)} ms | ${(o.later / o.fresh).toFixed(2)}× |`,
    ),
  );
}

const worst = (k: "ms" | "tokens") => {
  const rs = results.map((r) => ratio(r.ours[k], r.reference[k]));
  return rs.some((x) => x === undefined) ? undefined : Math.max(...(rs as number[]));
};
const worstTokens = worst("tokens");
const worstTime = worst("ms");
const largest = generated.find((r) => r.page.url.endsWith(`/shop-${LARGEST}.html`));
const oursGrowth = growth((r) => r.ours, "ms");
out.push(
  "",
  "Goals:",
  "",
  `- tokens ≤ ${GOALS.tokens}× reference on every page: ${verdict(worstTokens === undefined ? undefined : worstTokens <= GOALS.tokens)} (worst ${fmtRatio(worstTokens)})`,
  `- time ≤ ${GOALS.time}× reference on every page: ${verdict(worstTime === undefined ? undefined : worstTime <= GOALS.time)} (worst ${fmtRatio(worstTime)})`,
  largest
    ? `- 50k page < ${GOALS.largestMs / 1000} s: ${verdict(largest.ours.ms === undefined ? undefined : largest.ours.ms < GOALS.largestMs)} (wayfarer ${fmtMs(largest.ours)} ms, stagehand ${fmtMs(largest.reference)} ms)`
    : "- 50k page < 2 s: n/a (no 50000 in BENCH_SIZES)",
  `- growth no worse than linear: ${verdict(oursGrowth === undefined || elementGrowth === undefined ? undefined : oursGrowth <= elementGrowth)} (wayfarer time ${fmtRatio(oursGrowth)} for ${fmtRatio(elementGrowth)} elements)`,
);
console.log(out.join("\n"));

// Checks on the run itself: no model call, no traffic off this machine, nothing left running.
if (modelUsage) {
  const used = modelUsage.totalPromptTokens + modelUsage.totalCompletionTokens;
  progress(`stagehand model usage: ${used} tokens, ${modelUsage.totalInferenceTimeMs} ms`);
  if (used > 0) process.exitCode = 1;
}
const elsewhere = guard.elsewhere();
progress(
  `node connections: ${guard.loopbackConnections()} to loopback, ${elsewhere.length ? `ELSEWHERE: ${elsewhere.join(", ")}` : "none elsewhere"}`,
);
if (elsewhere.length) process.exitCode = 1;
// Renderers and the supervisor exit a moment after close() returns.
let left: string[] = [];
for (let i = 0; i < 50; i++) {
  left = [...leftovers()].filter((pid) => !runningBefore.has(pid));
  if (!left.length) break;
  await new Promise((r) => setTimeout(r, 100));
}
progress(`processes left running: ${left.length ? left.join(", ") : "none"}`);
if (left.length) process.exitCode = 1;
