/**
 * init() + first goto + close(), median of 10, next to plain playwright-core launching the same
 * binary with the same arguments, in the same run, interleaved so that machine noise hits both.
 * Goal (issue 2): at most 10 % overhead.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { resolveExecutable } from "../lib/browser/executable.js";
import { buildCommandLine } from "../lib/browser/launchArgs.js";
import { Client } from "../lib/index.js";
import { LocalBrowserLaunchOptionsSchema } from "../lib/options.js";
import { median } from "./median.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 10);

const server = createServer((_req, res) =>
  res.writeHead(200, { "content-type": "text/html" }).end("<title>bench</title><h1>bench</h1>"),
);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

const executable = await resolveExecutable({ headful: false });
const profileForArgs = await mkdtemp(join(tmpdir(), "wayfarer-bench-"));
const { args } = buildCommandLine({
  options: LocalBrowserLaunchOptionsSchema.parse({}),
  profile: "local",
  userDataDir: profileForArgs,
  noSandbox: process.getuid?.() === 0,
});
// Playwright drives over a pipe, makes its own fresh profile and adds its own switches (as our
// launcher adds its own); every argument of ours beyond those is passed as is.
const baselineArgs = args.filter(
  (a) =>
    !a.startsWith("--remote-debugging-port=") &&
    !a.startsWith("--user-data-dir=") &&
    a !== "--no-startup-window",
);

type Phases = { start: number; goto: number; close: number; total: number };

async function wayfarer(): Promise<Phases> {
  const t0 = performance.now();
  const client = new Client({ env: "LOCAL", verbose: 0, disablePino: true });
  await client.init();
  const t1 = performance.now();
  await client.context.activePage()!.goto(url);
  const t2 = performance.now();
  await client.close();
  const t3 = performance.now();
  return { start: t1 - t0, goto: t2 - t1, close: t3 - t2, total: t3 - t0 };
}

/** The baseline: launch + newPage (Playwright puts the page in a fresh incognito context). */
async function baseline(): Promise<Phases> {
  const t0 = performance.now();
  const browser = await chromium.launch({
    executablePath: executable.path,
    args: baselineArgs,
    env: { ...process.env, ...executable.env },
  });
  const page = await browser.newPage();
  const t1 = performance.now();
  await page.goto(url);
  const t2 = performance.now();
  await browser.close();
  const t3 = performance.now();
  return { start: t1 - t0, goto: t2 - t1, close: t3 - t2, total: t3 - t0 };
}

/** Playwright with what we do too: a real (temporary) profile and its default context. */
async function persistentBaseline(): Promise<Phases> {
  const t0 = performance.now();
  const context = await chromium.launchPersistentContext("", {
    executablePath: executable.path,
    args: baselineArgs,
    env: { ...process.env, ...executable.env },
    viewport: null,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const t1 = performance.now();
  await page.goto(url);
  const t2 = performance.now();
  await context.close();
  const t3 = performance.now();
  return { start: t1 - t0, goto: t2 - t1, close: t3 - t2, total: t3 - t0 };
}

const contenders = [
  { name: "wayfarer Client", run: wayfarer, runs: [] as Phases[] },
  { name: "playwright launch+newPage", run: baseline, runs: [] as Phases[] },
  { name: "playwright persistent", run: persistentBaseline, runs: [] as Phases[] },
];
for (const c of contenders) await c.run(); // warm-up, not counted
for (let i = 0; i < RUNS; i++) {
  // Rotate the order, so that no contender always runs on a warmer (or busier) machine.
  for (let j = 0; j < contenders.length; j++) {
    const c = contenders[(i + j) % contenders.length]!;
    c.runs.push(await c.run());
  }
}
server.close();
await rm(profileForArgs, { recursive: true, force: true });

const cell = (runs: Phases[], k: keyof Phases) =>
  median(runs.map((r) => r[k]))
    .toFixed(0)
    .padStart(7);
console.log(
  `init + first goto + close: medians of ${RUNS} runs, ms (${executable.source} Chromium)`,
);
console.log(
  `  ${"".padEnd(28)}${["start", "goto", "close", "total"].map((h) => h.padStart(7)).join("")}`,
);
for (const c of contenders) {
  console.log(
    `  ${c.name.padEnd(28)}${(["start", "goto", "close", "total"] as const).map((k) => cell(c.runs, k)).join("")}`,
  );
}
const total = (runs: Phases[]) => median(runs.map((r) => r.total));
const [ours, launch, persistent] = contenders.map((c) => total(c.runs)) as [number, number, number];
const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(1)} %`;
console.log(
  `  overhead vs launch+newPage (the goal's baseline): ${pct(ours, launch)} (goal: at most 10 %)`,
);
console.log(`  overhead vs persistent context:                   ${pct(ours, persistent)}`);
