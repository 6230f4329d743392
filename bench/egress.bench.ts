/**
 * The egress guard's cost per page load, on the shared corpus of real pages: the same pages
 * loaded by two browsers in the same run, alternating, one with no guard (the page straight
 * from 127.0.0.1, outside requests refused at once by the corpus's refusing proxy) and one with
 * every request through the egress proxy under the service's strict rule (127.0.0.1 let through
 * by name; outside names resolve to nothing, as the corpus maps them, and are refused).
 *
 *   npm run bench:egress            (BENCH_PAGES=n pages, default 60; BENCH_RUNS=n rounds, default 2)
 */
import { chromium } from "playwright-core";
import { startEgressProxy } from "../lib/browser/egressProxy.js";
import { resolveExecutable } from "../lib/browser/executable.js";
import { STRICT_RULE } from "../lib/net/addressRule.js";
import { startCorpusServer } from "./corpus/corpusServer.js";
import { median } from "./median.js";

const PAGES = Number(process.env.BENCH_PAGES ?? 60);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);

const corpus = await startCorpusServer();
if (!corpus) {
  console.log("no corpus at ../shared/corpus/pages (or WAYFARER_CORPUS): nothing to measure");
  process.exit(0);
}
const executable = await resolveExecutable({ headful: false });
const common = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
];
// Outside names resolve to nothing, as the corpus's host-resolver rule has them: refused at once.
let unresolved = 0;
const offline = async (host: string) => {
  if (host === "localhost") return ["127.0.0.1"];
  unresolved++;
  return [];
};
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
  await tab.goto(corpus!.url(page), { waitUntil: "load", timeout: 30_000 }).catch(() => {});
  const ms = performance.now() - t0;
  await context.close();
  return ms;
}

const pages = corpus.pages.slice(0, PAGES);
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
await corpus.close();
