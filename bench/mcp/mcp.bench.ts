/**
 * The page as each MCP server gives it to the calling model, on the shared corpus in the same
 * run: Wayfarer's `read {fresh: true}` against @playwright/mcp's `browser_snapshot`, both over
 * stdio with the SDK's client, on the same Chromium, switches and 1280×720. Per page: o200k
 * tokens of the answer's text (an outline given in parts counts every part), text recall of the
 * page's sentences (recall.ts), and the median time of BENCH_RUNS reads after one untimed read,
 * in alternating order. Then a click by id on a fixture page against a click by ref, the
 * tokens of each tools/list, and checks that nothing is left running.
 * Needs ../shared/corpus/pages (or WAYFARER_CORPUS); skips when it is absent.
 *
 *   npm run bench:mcp                      (all pages; installs bench/ dependencies when missing)
 *   BENCH_PAGES=5 BENCH_RUNS=3 npm run bench:mcp
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { resolveExecutable } from "../../lib/browser/executable.js";
import { startCorpusServer } from "../corpus/corpusServer.js";
import { playwrightMcpText, recall, sentencesOf, wayfarerText } from "../corpus/recall.js";
import { median } from "../median.js";
import { installedVersion, sharedChromiumArgs } from "../snapshot/engines.js";
import { guardLoopback } from "../snapshot/loopbackGuard.js";
import { startBenchServer } from "../snapshot/server.js";
import {
  type McpSide,
  PLAYWRIGHT_MCP,
  type PlaywrightSide,
  startPlaywrightMcp,
  startWayfarerMcp,
} from "./servers.js";

const guard = guardLoopback();
const GOALS = { ratio: 0.6 };
const progress = (line: string) => process.stderr.write(`${line}\n`);

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("BENCH_RUNS must be a positive integer");
const corpus = await startCorpusServer();
if (!corpus) {
  console.log("bench:mcp skipped: no corpus at ../shared/corpus/pages (set WAYFARER_CORPUS)");
  process.exit(0);
}
const limit = Number(process.env.BENCH_PAGES ?? corpus.pages.length);
if (!Number.isInteger(limit) || limit < 1)
  throw new Error("BENCH_PAGES must be a positive integer");
const pages = corpus.pages.slice(0, limit);

const TOKENIZER = "gpt-tokenizer";
// Held in a variable so that tsc does not look for bench/node_modules, absent on a clean clone.
const tokenizerEntry = `${TOKENIZER}/encoding/o200k_base`;
const { countTokens } = (await import(tokenizerEntry)) as { countTokens(text: string): number };

const executable = await resolveExecutable({ headful: false });
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" / ");
const loadAtStart = load();

/** Every process under `root` (the servers' browsers, tsx's esbuild), by ps's parent links. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  const out = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  for (const line of out.trim().split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(root);
  return found;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Row {
  page: string;
  sentences: number;
  ours: { tokens: number; parts: number; recall: number; ms: number };
  theirs: { tokens: number; recall: number; ms: number };
}
interface Failed {
  page: string;
  error: string;
}

/**
 * Both servers start afresh every this many pages, as the corpus bench's engines do: one tab
 * that has seen many pages is not what a conversation usually has.
 */
const PAGES_PER_SERVER = 10;
const sharedArgs = await sharedChromiumArgs();
const oursArgs = corpus.browserArgs; // our launcher adds its own command line
const theirsArgs = [...sharedArgs, ...corpus.browserArgs];

let ours: McpSide | undefined;
let theirs: PlaywrightSide | undefined;
/** Server processes and what ran under them, gathered before each close. */
const watched = new Set<number>();
const outputDirs: string[] = [];
const refused = new Set<string>();
const closeServers = async () => {
  for (const side of [ours, theirs]) {
    if (!side) continue;
    watched.add(side.pid);
    for (const p of descendants(side.pid)) watched.add(p);
    await side.close().catch((error) => progress(`${side.name} close: ${error}`));
    for (const host of side.refused()) refused.add(`${side.name}: ${host}`);
  }
  ours = theirs = undefined;
};
const startServers = async () => {
  await closeServers();
  ours = await startWayfarerMcp(executable, oursArgs);
  theirs = await startPlaywrightMcp(executable, theirsArgs);
  outputDirs.push(theirs.outputDir);
};

const rows: Row[] = [];
const failed: Failed[] = [];
const clicks = { ours: [] as number[], theirs: [] as number[] };
const toolsTokens = { ours: 0, theirs: 0 };
const timed = async <T>(work: () => Promise<T>) => {
  const t0 = performance.now();
  const value = await work();
  return { ms: performance.now() - t0, value };
};
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const fixtures = await startBenchServer();
const t0 = performance.now();
try {
  for (const [k, page] of pages.entries()) {
    if (k % PAGES_PER_SERVER === 0) await startServers();
    if (!ours || !theirs) throw new Error("no servers");
    if (k === 0) {
      toolsTokens.ours = countTokens(await ours.toolsJson());
      toolsTokens.theirs = countTokens(await theirs.toolsJson());
    }
    const url = corpus.url(page);
    // Alternate which server goes first, so that machine noise does not favour one of them.
    const order: McpSide[] = k % 2 === 0 ? [ours, theirs] : [theirs, ours];
    try {
      for (const side of order) await side.open(url);
      const texts = new Map<McpSide, string>();
      const times = new Map<McpSide, number[]>(order.map((s) => [s, []]));
      for (const side of order) texts.set(side, await side.read());
      for (let i = 0; i < RUNS; i++) {
        for (const side of i % 2 === 0 ? order : [...order].reverse()) {
          const { ms, value } = await timed(() => side.read());
          times.get(side)!.push(ms);
          texts.set(side, value);
        }
      }
      const ourParts = await ours.allParts(texts.get(ours)!);
      const theirText = texts.get(theirs)!;
      const sentences = sentencesOf(await theirs.visibleText());
      rows.push({
        page,
        sentences: sentences.length,
        ours: {
          tokens: ourParts.reduce((n, p) => n + countTokens(p), 0),
          parts: ourParts.length,
          recall: recall(sentences, wayfarerText(ourParts.join("\n"))),
          ms: median(times.get(ours)!),
        },
        theirs: {
          tokens: countTokens(theirText),
          recall: recall(sentences, playwrightMcpText(theirText)),
          ms: median(times.get(theirs)!),
        },
      });
      const r = rows.at(-1)!;
      progress(
        `${k + 1}/${pages.length} ${page}: tokens ${r.ours.tokens}${r.ours.parts > 1 ? ` (${r.ours.parts} parts)` : ""} / ${r.theirs.tokens} = ${(r.ours.tokens / r.theirs.tokens).toFixed(2)}×; recall ${pct(r.ours.recall)} / ${pct(r.theirs.recall)} of ${r.sentences}; read ${r.ours.ms.toFixed(0)} / ${r.theirs.ms.toFixed(0)} ms`,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      progress(`${k + 1}/${pages.length} ${page}: failed: ${message}`);
      failed.push({ page, error: message.split("\n")[0]! });
    }
  }

  // A click by id (ours) and by ref (theirs) on the same fixture: each after a fresh read, so the
  // id is current and only the click itself is timed (the answer after it included).
  if (!ours || !theirs) await startServers();
  const counter = `${fixtures.origin}/fixtures/agent/counter.html`;
  for (const side of [ours!, theirs!]) await side.open(counter);
  const clickRuns = Math.max(RUNS, 5);
  for (let i = 0; i < clickRuns; i++) {
    for (const [side, into] of i % 2 === 0
      ? ([
          [ours!, clicks.ours],
          [theirs!, clicks.theirs],
        ] as const)
      : ([
          [theirs!, clicks.theirs],
          [ours!, clicks.ours],
        ] as const)) {
      const click = await side.prepareClick("Add a cup");
      into.push((await timed(click)).ms);
    }
  }
} finally {
  await closeServers();
  await corpus.close();
  await fixtures.close();
}
const minutes = (performance.now() - t0) / 60_000;

const ratios = rows.map((r) => r.ours.tokens / r.theirs.tokens);
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / (xs.length || 1);
const medianRatio = rows.length ? median(ratios) : Number.NaN;
const recallOurs = mean(rows.map((r) => r.ours.recall));
const recallTheirs = mean(rows.map((r) => r.theirs.recall));
const readOurs = rows.length ? median(rows.map((r) => r.ours.ms)) : Number.NaN;
const readTheirs = rows.length ? median(rows.map((r) => r.theirs.ms)) : Number.NaN;
const chunked = rows.filter((r) => r.ours.parts > 1).length;
const verdict = (ok: boolean) => (ok ? "met" : "missed");
const ratioMet = rows.length > 0 && medianRatio <= GOALS.ratio;
const recallMet = rows.length > 0 && recallOurs >= recallTheirs;
const [pwVersion, tokenizerVersion] = await Promise.all([
  installedVersion(PLAYWRIGHT_MCP),
  installedVersion(TOKENIZER),
]);

console.log(
  [
    `The page as each MCP server answers it: wayfarer \`read {fresh: true}\` against ${PLAYWRIGHT_MCP} ${pwVersion} \`browser_snapshot\`, ${rows.length} corpus pages (${failed.length} failed), median of ${RUNS} reads after one, same run (${minutes.toFixed(1)} min).`,
    `Chromium: ${executable.source} ${executable.path}, headless, 1280×720, the same switches for both; Node ${process.version}; tokens: o200k_base (${TOKENIZER} ${tokenizerVersion}) of the answer's text; load average ${loadAtStart} at the start, ${load()} at the end (1 / 5 / 15 min).`,
    "",
    "| page | wayfarer tokens | playwright-mcp tokens | ratio | wayfarer recall | playwright-mcp recall | wayfarer read ms | playwright-mcp read ms |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.page} | ${r.ours.tokens}${r.ours.parts > 1 ? ` (${r.ours.parts} parts)` : ""} | ${r.theirs.tokens} | ${(r.ours.tokens / r.theirs.tokens).toFixed(2)}× | ${pct(r.ours.recall)} | ${pct(r.theirs.recall)} | ${r.ours.ms.toFixed(0)} | ${r.theirs.ms.toFixed(0)} |`,
    ),
    "",
    `Outlines given in parts (every part counted): ${chunked} of ${rows.length} pages.`,
    "",
    "| | wayfarer | playwright-mcp |",
    "| --- | ---: | ---: |",
    `| median tokens per page | ${rows.length ? median(rows.map((r) => r.ours.tokens)).toFixed(0) : "n/a"} | ${rows.length ? median(rows.map((r) => r.theirs.tokens)).toFixed(0) : "n/a"} |`,
    `| mean text recall | ${pct(recallOurs)} | ${pct(recallTheirs)} |`,
    `| median read ms (per-page medians) | ${readOurs.toFixed(0)} | ${readTheirs.toFixed(0)} |`,
    `| median click ms (counter.html, ${clicks.ours.length} clicks) | ${clicks.ours.length ? median(clicks.ours).toFixed(0) : "n/a"} | ${clicks.theirs.length ? median(clicks.theirs).toFixed(0) : "n/a"} |`,
    `| tools/list tokens (JSON of the tools) | ${toolsTokens.ours} | ${toolsTokens.theirs} |`,
    "",
    "Goals:",
    "",
    `- median per-page token ratio ≤ ${GOALS.ratio}×: ${verdict(ratioMet)} (${medianRatio.toFixed(2)}×)`,
    `- text recall not lower than playwright-mcp's: ${verdict(recallMet)} (${pct(recallOurs)} against ${pct(recallTheirs)})`,
    `- read time: wayfarer ${readOurs.toFixed(0)} ms, playwright-mcp ${readTheirs.toFixed(0)} ms (${(readOurs / readTheirs).toFixed(2)}×); click: ${clicks.ours.length ? `${median(clicks.ours).toFixed(0)} ms against ${median(clicks.theirs).toFixed(0)} ms` : "n/a"}`,
    ...failed.map((f) => `- failed: ${f.page}: ${f.error}`),
  ].join("\n"),
);

// Checks on the run itself: no connection off this machine from here, nothing left running.
const elsewhere = guard.elsewhere();
progress(
  `node connections: ${guard.loopbackConnections()} to loopback, ${elsewhere.length ? `ELSEWHERE: ${elsewhere.join(", ")}` : "none elsewhere"}; the servers' own: ${refused.size ? `REFUSED ${[...refused].join(", ")}` : "none off the loopback"}`,
);
let left: number[] = [];
for (let i = 0; i < 50; i++) {
  left = [...watched].filter(alive);
  if (!left.length) break;
  await new Promise((r) => setTimeout(r, 100));
}
const dirsLeft = outputDirs.filter((d) => existsSync(d));
progress(
  `processes left running (servers, browsers): ${left.length ? left.join(", ") : `none of ${watched.size}`}; playwright-mcp output folders left: ${dirsLeft.length ? dirsLeft.join(", ") : "none"}`,
);
if (elsewhere.length || refused.size || left.length || dirsLeft.length) process.exitCode = 1;
