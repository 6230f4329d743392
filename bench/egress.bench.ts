/**
 * The egress guard's cost per page load, on the shared corpus of real pages, two ways:
 *
 * - browser: the same pages loaded by two browsers in the same run, alternating, one with no
 *   guard (the page straight from 127.0.0.1, outside requests refused at once by the corpus's
 *   refusing proxy) and one with every request through the egress proxy under the service's
 *   strict rule (127.0.0.1 let through by name; outside names resolve to nothing, as the corpus
 *   maps them, and are refused).
 * - job: the job as a function runs it (runJob: init → goto → close, a browser of its own per
 *   run) on each page, with its guard (the default, under the job's rule) and with
 *   JOB_EGRESS=off, alternating which goes first; the figure is the goto step (the job's page
 *   load), the whole run apart. Outside names resolve to nothing here too: the system's lookup
 *   is replaced in this process, so that no DNS query leaves the machine.
 *
 *   npm run bench:egress [browser|job]   (BENCH_PAGES=n pages, default 60; BENCH_RUNS=n rounds, default 2)
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { chromium } from "playwright-core";
import { startEgressProxy } from "../lib/browser/egressProxy.js";
import { resolveExecutable } from "../lib/browser/executable.js";
import { resolveJob } from "../lib/job/definition.js";
import { runJob } from "../lib/job/runJob.js";
import { STRICT_RULE } from "../lib/net/addressRule.js";
import { type CorpusServer, startCorpusServer } from "./corpus/corpusServer.js";
import { median } from "./median.js";

const PAGES = Number(process.env.BENCH_PAGES ?? 60);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const only = process.argv[2];

// Outside names resolve to nothing, as the corpus's host-resolver rule has them: refused at once.
let unresolved = 0;
const offline = async (host: string) => {
  if (host === "localhost") return ["127.0.0.1"];
  unresolved++;
  return [];
};
// The job's guard resolves with the system's lookup (lib/net/addressRule.ts): the same answers.
const dns = createRequire(import.meta.url)("node:dns/promises") as {
  lookup: (host: string, options?: unknown) => Promise<unknown>;
};
dns.lookup = async (host: string) => {
  const addresses = await offline(host);
  if (addresses.length) return addresses.map((address) => ({ address, family: 4 }));
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
};
syncBuiltinESMExports();

const started = await startCorpusServer();
if (!started) {
  console.log("no corpus at ../shared/corpus/pages (or WAYFARER_CORPUS): nothing to measure");
  process.exit(0);
}
const corpus: CorpusServer = started;
const pages = corpus.pages.slice(0, PAGES);
if (only !== "job") await browserLoads();
if (only !== "browser") await jobLoads();
await corpus.close();

async function browserLoads(): Promise<void> {
  const executable = await resolveExecutable({ headful: false });
  const common = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
  ];
  unresolved = 0;
  let refused = 0;
  const egress = await startEgressProxy({
    rule: { ...STRICT_RULE, allowHosts: ["127.0.0.1"] },
    lookup: offline,
    onRefused: () => refused++,
  });

  const launch = (args: string[]) =>
    chromium.launch({
      executablePath: executable.path,
      env: { ...process.env, ...executable.env },
      args: [...common, ...args],
    });
  const unguarded = await launch(corpus.browserArgs);
  const guarded = await launch([`--proxy-server=${egress.url}`, "--proxy-bypass-list=<-loopback>"]);

  /** One page load to `load`, in a fresh context; its time in ms (a page that fails counts too). */
  async function load(browser: typeof unguarded, page: string): Promise<number> {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const t0 = performance.now();
    await tab.goto(corpus.url(page), { waitUntil: "load", timeout: 30_000 }).catch(() => {});
    const ms = performance.now() - t0;
    await context.close();
    return ms;
  }

  const none: number[] = [];
  const guard: number[] = [];
  const ratios: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (const [i, page] of pages.entries()) {
      // Alternate which goes first, so that neither always meets a warm server or cache.
      const first = (i + run) % 2 === 0;
      const a = first ? await load(unguarded, page) : 0;
      const b = await load(guarded, page);
      const c = first ? a : await load(unguarded, page);
      none.push(c);
      guard.push(b);
      ratios.push(b / c);
    }
  }
  console.log(
    `egress guard, ${pages.length} corpus pages × ${RUNS} rounds, load event, fresh context each`,
  );
  console.log(`  no guard:    median ${median(none).toFixed(1)} ms`);
  console.log(`  egress proxy: median ${median(guard).toFixed(1)} ms`);
  console.log(
    `  per page: median ratio ${median(ratios).toFixed(3)}×, median difference ${median(guard.map((g, i) => g - none[i]!)).toFixed(1)} ms`,
  );
  console.log(
    `  outside hosts unresolved (refused, each looked up once): ${unresolved}; refused by the rule: ${refused}`,
  );

  await Promise.all([unguarded.close(), guarded.close()]);
  await egress.close();
}

/** The job on every page, guard on and off in turn; goto's time and the whole run's. */
async function jobLoads(): Promise<void> {
  // Both sides keep the browser off the network as the corpus asks; with the guard, its proxy
  // replaces the corpus's refusing one (the job drops a proxy switch of the caller's).
  const client = {
    disablePino: true,
    localBrowserLaunchOptions: { args: corpus.browserArgs },
  };
  const once = async (page: string, egress: "on" | "off") => {
    const job = resolveJob({ url: corpus.url(page) }, { JOB_EGRESS: egress });
    const t0 = performance.now();
    const { timings } = await runJob(job, { client });
    return { goto: timings.goto!, run: performance.now() - t0 };
  };
  unresolved = 0;
  const on = { goto: [] as number[], run: [] as number[] };
  const off = { goto: [] as number[], run: [] as number[] };
  const ratios: number[] = [];
  const differences: number[] = [];
  let failed = 0;
  for (let run = 0; run < RUNS; run++) {
    for (const [i, page] of pages.entries()) {
      const order = (i + run) % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
      try {
        const [a, b] = [await once(page, order[0]), await once(page, order[1])];
        const [guarded, plain] = order[0] === "on" ? [a, b] : [b, a];
        on.goto.push(guarded.goto);
        on.run.push(guarded.run);
        off.goto.push(plain.goto);
        off.run.push(plain.run);
        ratios.push(guarded.goto / plain.goto);
        differences.push(guarded.goto - plain.goto);
      } catch {
        failed++; // a page whose load fails either way is left out of both columns
      }
    }
  }
  console.log(
    `the job's page loads (runJob per page), ${pages.length} corpus pages × ${RUNS} rounds, guard on (default) against JOB_EGRESS=off`,
  );
  console.log(
    `  goto, JOB_EGRESS=off: median ${median(off.goto).toFixed(1)} ms; guard on: median ${median(on.goto).toFixed(1)} ms`,
  );
  console.log(
    `  per page: median ratio ${median(ratios).toFixed(3)}×, median difference ${median(differences).toFixed(1)} ms`,
  );
  console.log(
    `  whole run (init → goto → close), off: ${median(off.run).toFixed(0)} ms; on: ${median(on.run).toFixed(0)} ms (${(median(on.run) / median(off.run)).toFixed(3)}×)`,
  );
  console.log(
    `  outside hosts unresolved (refused by the guard): ${unresolved}; pairs failed: ${failed}`,
  );
}
