/**
 * The whole job (init → goto → act → extract → close) on a fixture page with an instantly
 * answering model (msw, in-process), next to the same steps written with plain playwright-core
 * (launch, newPage, goto, click the button, read the cart, close) in the same run:
 * - cold: a new Node process per run (what a serverless invocation pays), Chromium already
 *   unpacked (the one-time unpack is reported apart);
 * - warm: in one process;
 * - cold with a committed cache: the job's act replayed from a cacheDir recorded beforehand
 *   (its extract still asks the instant model), as a deployed function with job-cache/ runs.
 * - the same runs with JOB_EGRESS=off, in the same rotation: what the job's egress guard (on by
 *   default since issue 30) costs the whole job, guard on against off.
 * Goals (issue 6): cold under 3 s, at most 1.2× plain Playwright; (issue 16) the cached cold
 * run within 1.2× plain Playwright too; (issue 30) the guard within 5 % of the job without it.
 *
 *   npm run bench:job          BENCH_RUNS=10 npm run bench:job
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { setupServer } from "msw/node";
import { chromium } from "playwright-core";
import { chromiumPack } from "../lib/browser/chromiumPack.js";
import { resolveExecutable } from "../lib/browser/executable.js";
import { resolveJob } from "../lib/job/definition.js";
import { runJob } from "../lib/job/runJob.js";
import { shopModel } from "../test/support/llm/shopModel.js";
import { median } from "./median.js";
import { startBenchServer } from "./snapshot/server.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const QUIET = ["--disable-background-networking", "--disable-component-update", "--disable-sync"];

const instantModel = shopModel();

async function wayfarerOnce(url: string, cacheDir?: string, egress = "on"): Promise<string> {
  const model = setupServer(instantModel);
  model.listen({ onUnhandledRequest: "bypass" });
  try {
    const job = resolveJob(
      {
        url,
        act: "add black tea to the cart",
        extract: "what is in the cart",
        model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench" },
        ...(cacheDir ? { cacheDir } : {}),
      },
      { JOB_EGRESS: egress },
    );
    return (await runJob(job)).data;
  } finally {
    model.close();
  }
}

async function playwrightOnce(url: string): Promise<string> {
  const executable = await resolveExecutable({ headful: false });
  const browser = await chromium.launch({
    executablePath: executable.path,
    args: QUIET,
    env: { ...process.env, ...executable.env },
  });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.click("li:nth-child(2) button");
    return (await page.textContent("#cart")) ?? "";
  } finally {
    await browser.close();
  }
}

type Who = "wayfarer" | "unguarded" | "playwright";
/** One run of `who` in this process: Wayfarer's job (guard on, or JOB_EGRESS=off) or Playwright. */
const runOnce = (who: Who, url: string) =>
  who === "playwright"
    ? playwrightOnce(url)
    : wayfarerOnce(url, undefined, who === "unguarded" ? "off" : "on");

const mode = process.argv[2];
if (mode?.startsWith("once-")) {
  const url = process.env.BENCH_URL!;
  const data = await (mode === "once-cached"
    ? wayfarerOnce(url, process.env.BENCH_CACHE_DIR)
    : runOnce(mode.slice("once-".length) as Who, url));
  if (!data.includes("black")) throw new Error(`wrong answer: ${data}`);
} else {
  const t0 = performance.now();
  await chromiumPack();
  const unpackMs = performance.now() - t0;
  const server = await startBenchServer();
  const url = `${server.origin}/fixtures/outline/shop.html`;
  const cold = { wayfarer: [] as number[], unguarded: [] as number[], playwright: [] as number[] };
  const cachedCold: number[] = [];
  // The committed cache: recorded once, here, as `npm start` would.
  const cacheDir = mkdtempSync(join(tmpdir(), "wayfarer-bench-job-cache-"));
  await wayfarerOnce(url, cacheDir);
  const warm = { wayfarer: [] as number[], unguarded: [] as number[], playwright: [] as number[] };
  const everyone: Who[] = ["wayfarer", "unguarded", "playwright"];
  try {
    for (let i = 0; i < RUNS; i++) {
      // Each goes first, second and third in turn.
      for (const who of [...everyone.slice(i % 3), ...everyone.slice(0, i % 3)]) {
        const started = performance.now();
        // Not a synchronous spawn: this process serves the page the child opens.
        await promisify(execFile)(
          process.execPath,
          ["--import", "tsx", import.meta.filename, `once-${who}`],
          {
            env: { ...process.env, BENCH_URL: url },
          },
        );
        cold[who].push(performance.now() - started);
        const w0 = performance.now();
        await runOnce(who, url);
        warm[who].push(performance.now() - w0);
      }
      const c0 = performance.now();
      await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", import.meta.filename, "once-cached"],
        { env: { ...process.env, BENCH_URL: url, BENCH_CACHE_DIR: cacheDir } },
      );
      cachedCold.push(performance.now() - c0);
    }
  } finally {
    await server.close();
    rmSync(cacheDir, { recursive: true, force: true });
  }
  const row = (name: string, r: { wayfarer: number[]; playwright: number[] }) => {
    const ours = median(r.wayfarer);
    const plain = median(r.playwright);
    return `| ${name} | ${ours.toFixed(0)} | ${plain.toFixed(0)} | ${(ours / plain).toFixed(2)}× |`;
  };
  const guardRatio = (r: { wayfarer: number[]; unguarded: number[] }) =>
    `${(median(r.wayfarer) / median(r.unguarded)).toFixed(3)}× (${median(r.wayfarer).toFixed(0)} / ${median(r.unguarded).toFixed(0)} ms)`;
  console.log(
    [
      `The whole job with an instant model, median of ${RUNS}, next to plain playwright-core in the same run`,
      `(Chromium unpack, once: ${unpackMs.toFixed(0)} ms, already done or not, measured apart)`,
      "",
      "| run | Wayfarer ms | plain Playwright ms | × (goal ≤ 1.2; cold < 3000 ms) |",
      "| --- | ---: | ---: | ---: |",
      row("cold (new process)", cold),
      row("warm (same process)", warm),
      row("cold, act from a committed cache", {
        wayfarer: cachedCold,
        playwright: cold.playwright,
      }),
      row("cold, JOB_EGRESS=off", { wayfarer: cold.unguarded, playwright: cold.playwright }),
      row("warm, JOB_EGRESS=off", { wayfarer: warm.unguarded, playwright: warm.playwright }),
      "",
      `The egress guard's cost on the job (guard on / JOB_EGRESS=off, goal ≤ 1.05): cold ${guardRatio(cold)}, warm ${guardRatio(warm)}`,
    ].join("\n"),
  );
}
