/**
 * `extract()` right after `goto(url, {waitUntil: "load"})` on the shared corpus of saved
 * real-world pages, against the same call on the page at rest (a fresh load, 3 s idle, then the
 * first extract()) and against the reference engine's extract() right after load, in the same
 * run. Content must not shrink: text recall (recall.ts) per page, after load and at rest, for
 * both engines; every page whose recall right after load is below its recall at rest is listed.
 * Needs ../shared/corpus/pages (or WAYFARER_CORPUS); skips when it is absent.
 *
 *   npm run bench:corpus                     (all pages)
 *   BENCH_PAGES=60 npm run bench:corpus      (the first 60 by file name)
 */
import { resolveExecutable } from "../../lib/browser/executable.js";
import { median } from "../median.js";
import {
  type Engine,
  installedVersion,
  STAGEHAND,
  sharedChromiumArgs,
  startStagehand,
  startWayfarer,
} from "../snapshot/engines.js";
import { guardLoopback } from "../snapshot/loopbackGuard.js";
import { startCorpusServer } from "./corpusServer.js";
import { recall, referenceText, sentencesOf, wayfarerText } from "./recall.js";

const guard = guardLoopback();
const AT_REST_IDLE_MS = 3_000;
const GOALS = { atRest: 1.3, reference: 0.5 };
const progress = (line: string) => process.stderr.write(`${line}\n`);

const corpus = await startCorpusServer();
if (!corpus) {
  console.log("bench:corpus skipped: no corpus at ../shared/corpus/pages (set WAYFARER_CORPUS)");
  process.exit(0);
}
const limit = Number(process.env.BENCH_PAGES ?? corpus.pages.length);
const pages = corpus.pages.slice(0, limit);

const executable = await resolveExecutable({ headful: false });
Object.assign(process.env, executable.env);

interface Row {
  page: string;
  sentences: number;
  afterLoad: number;
  atRest: number;
  reference?: number;
  recallAfterLoad: number;
  recallAtRest: number;
  recallReference?: number;
  error?: string;
}

const timed = async (e: Engine): Promise<{ ms: number; text: string }> => {
  const t0 = performance.now();
  const text = await e.snapshot!();
  return { ms: performance.now() - t0, text };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * Both engines start afresh every this many pages: the reference's per-page bookkeeping grows
 * with every navigation (its extract() took 5–10× longer after 25 pages in one tab), which
 * would flatter us.
 */
const PAGES_PER_BROWSER = 10;

const rows: Row[] = [];
let engines: Engine[] = [];
const stagehandVersion = await installedVersion(STAGEHAND);
const referenceArgs = [...(await sharedChromiumArgs()), ...corpus.browserArgs];
const closeEngines = async () => {
  for (const e of engines) await e.close().catch((error) => progress(`close: ${error}`));
  engines = [];
};
try {
  let ours: Engine | undefined;
  let reference: Engine | undefined;
  for (const [k, page] of pages.entries()) {
    const url = corpus.url(page);
    if (k % PAGES_PER_BROWSER === 0) {
      await closeEngines();
      ours = await startWayfarer(executable, corpus.browserArgs);
      reference = await startStagehand(executable, referenceArgs);
      engines = [ours, reference];
    }
    if (!ours || !reference) throw new Error("no engines");
    try {
      await ours.goto(url);
      const after = await timed(ours);
      await reference.goto(url);
      const ref = await timed(reference);
      // Nothing else runs while our fresh load idles: the machine has two cores.
      await ours.goto(url);
      await sleep(AT_REST_IDLE_MS);
      const rest = await timed(ours);
      const sentences = sentencesOf(await ours.evaluate<string>("document.body?.innerText ?? ''"));
      rows.push({
        page,
        sentences: sentences.length,
        afterLoad: after.ms,
        atRest: rest.ms,
        reference: ref.ms,
        recallAfterLoad: recall(sentences, wayfarerText(after.text)),
        recallAtRest: recall(sentences, wayfarerText(rest.text)),
        recallReference: recall(sentences, referenceText(ref.text)),
      });
      const r = rows.at(-1)!;
      progress(
        `${k + 1}/${pages.length} ${page}: after load ${r.afterLoad.toFixed(0)} ms, at rest ${r.atRest.toFixed(0)} ms, reference ${r.reference!.toFixed(0)} ms; ${r.sentences} sentences, recall ${pct(r.recallAfterLoad)} / ${pct(r.recallAtRest)} / ${pct(r.recallReference!)}`,
      );
    } catch (error) {
      progress(`${page}: ${error instanceof Error ? error.message : String(error)}`);
      rows.push({
        page,
        sentences: 0,
        afterLoad: Number.NaN,
        atRest: Number.NaN,
        recallAfterLoad: 0,
        recallAtRest: 0,
        error: String(error),
      });
    }
  }
} finally {
  await closeEngines();
  await corpus.close();
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
const ok = rows.filter((r) => !r.error);
const med = (f: (r: Row) => number) => median(ok.map(f));
const mAfter = med((r) => r.afterLoad);
const mRest = med((r) => r.atRest);
const mRef = med((r) => r.reference!);
const mRatioRest = med((r) => r.afterLoad / r.atRest);
const mRatioRef = med((r) => r.afterLoad / r.reference!);
const mean = (f: (r: Row) => number) => ok.reduce((a, r) => a + f(r), 0) / ok.length;
const losers = ok.filter((r) => r.recallAfterLoad < r.recallAtRest);
const verdict = (x: number, goal: number) =>
  `${x.toFixed(2)}× (goal ≤ ${goal}: ${x <= goal ? "met" : "missed"})`;

console.log(
  [
    `extract() right after goto(load) on ${ok.length} corpus pages (${rows.length - ok.length} failed), one call each, same run.`,
    `Reference: ${STAGEHAND} ${stagehandVersion}; Node ${process.version}; ${executable.source}: ${executable.path}.`,
    "",
    "| | median ms | median of per-page ratios |",
    "| --- | ---: | ---: |",
    `| Wayfarer right after load | ${mAfter.toFixed(0)} | |`,
    `| Wayfarer at rest (fresh load, 3 s idle) | ${mRest.toFixed(0)} | after load ÷ at rest: ${verdict(mRatioRest, GOALS.atRest)} |`,
    `| reference right after load | ${mRef.toFixed(0)} | after load ÷ reference: ${verdict(mRatioRef, GOALS.reference)} |`,
    "",
    `Ratio of medians: after load ÷ at rest ${(mAfter / mRest).toFixed(2)}×, after load ÷ reference ${(mAfter / mRef).toFixed(2)}×.`,
    "",
    `Text recall (sentences of 5+ words of the page's innerText found in the outline), mean over pages: Wayfarer after load ${pct(mean((r) => r.recallAfterLoad))}, at rest ${pct(mean((r) => r.recallAtRest))}; reference after load ${pct(mean((r) => r.recallReference!))}.`,
    losers.length
      ? `Pages whose recall right after load is below their recall at rest (${losers.length}):\n${losers.map((r) => `- ${r.page}: ${pct(r.recallAfterLoad)} < ${pct(r.recallAtRest)}`).join("\n")}`
      : "No page loses recall right after load.",
    ...rows.filter((r) => r.error).map((r) => `- failed: ${r.page}: ${r.error}`),
  ].join("\n"),
);

const elsewhere = guard.elsewhere();
progress(
  `node connections: ${guard.loopbackConnections()} to loopback, ${elsewhere.length ? `ELSEWHERE: ${elsewhere.join(", ")}` : "none elsewhere"}`,
);
if (elsewhere.length || losers.length) process.exitCode = 1;
