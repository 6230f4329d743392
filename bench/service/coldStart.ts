/**
 * Issue 34, item 3: cold start and idle memory of the service's entry. Each start is a new
 * process: the time from its spawn to the first 200 of /readyz (polled every 10 ms once it says
 * where it listens), the CPU it spent until then (utime + stime, every thread), and its resident
 * memory 3 s later: the spawned process, and its whole tree (a wrapper such as npm, the
 * lifeline's sh). Then SIGTERM. No browser is open or waiting (WAYFARER_WARM_BROWSERS=0: the
 * pool's browsers are the startPool section's), so the figure is the idle service's.
 *
 * Sides, alternating start by start, a warm-up round not counted, medians of BENCH_COLD_ROUNDS
 * (default 7): the built entry (bin/wayfarer-service running dist/, built first if stale), this
 * tree's lib/ under tsx (what the entry runs without a build), the service at BENCH_BEFORE
 * (under tsx, as it ran then), and the reference v1 server with BENCH_REFERENCE.
 *
 * Alone: see /work/briefs/bench34.md (BENCH_COLD_ROUNDS=n).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { stop as stopEsbuild } from "esbuild";
import { ensureBuilt } from "../../scripts/build.js";
import { liveDescendants } from "../../test/support/processes.js";
import { unpackBefore } from "../beforeService.js";
import { median } from "../median.js";
import { BENCH_KEY } from "./sides.js";

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 7);
const IDLE_AFTER_MS = 3_000;
const STARTUP_MS = 60_000;
const ROOT = join(import.meta.dirname, "..", "..");
const TICK_MS = 10;

/** A server started from nothing: its command, its environment, the line that gives its address. */
export interface ColdStarter {
  name: string;
  command: [string, ...string[]];
  env: (dataDir: string) => Record<string, string>;
  /** Matches its "listening" line (stdout or stderr); group 1 is `http://127.0.0.1:PORT`. */
  listening: RegExp;
  /** How it is stopped once measured: SIGTERM (the default), or SIGKILL for one slow to stop. */
  stopSignal?: "SIGTERM" | "SIGKILL";
  /** Run before each start, not timed. */
  before?: () => Promise<unknown>;
  /** A line it must print, else the start measured something else. */
  says?: RegExp;
}

interface Start {
  readyMs: number;
  cpuMs: number;
  rssMiB: number;
  treeMiB: number;
}

const ourEnv = (modelUrl: string) => (dataDir: string) => ({
  HOST: "127.0.0.1",
  PORT: "0",
  WAYFARER_DATA_DIR: dataDir,
  WAYFARER_API_KEYS: `bench:${BENCH_KEY}`,
  WAYFARER_ALLOW_HOSTS: "127.0.0.1",
  WAYFARER_WARM_BROWSERS: "0",
  OPENAI_BASE_URL: modelUrl,
});
const OUR_LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/;

/**
 * The reference server's start, when BENCH_REFERENCE names it. bench/referenceService.ts (the
 * reference side's own file) knows how it is started; this section needs it as a ColdStarter
 * (its command and environment, not a started side), exported there as `referenceColdStarter`.
 * Until that exists the reference row is left out, saying so.
 */
async function referenceStarter(modelUrl: string): Promise<ColdStarter | undefined> {
  if (!process.env.BENCH_REFERENCE) return undefined;
  const reference = (await import("../referenceService.js")) as {
    referenceColdStarter?: (modelUrl: string) => ColdStarter;
  };
  if (!reference.referenceColdStarter) {
    console.log(
      "(BENCH_REFERENCE is set, but bench/referenceService.ts has no referenceColdStarter yet: no reference row)",
    );
    return undefined;
  }
  return reference.referenceColdStarter(modelUrl);
}

function rssMiB(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** CPU ms the process has spent, every thread. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function startOnce(starter: ColdStarter): Promise<Start> {
  await starter.before?.();
  const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-bench-cold-"));
  const [program, ...args] = starter.command;
  const started = performance.now();
  const child = spawn(program, args, {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? dataDir,
      ...starter.env(dataDir),
    },
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  const keep = (d: Buffer) => {
    printed = (printed + d.toString()).slice(-16_384);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  try {
    let url: string | undefined;
    for (;;) {
      if (exited) throw new Error(`${starter.name} exited before it was ready: ${printed}`);
      if (performance.now() - started > STARTUP_MS) {
        throw new Error(`${starter.name} was not ready in ${STARTUP_MS / 1000} s: ${printed}`);
      }
      url ??= starter.listening.exec(printed)?.[1];
      const status = url
        ? await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) }).then(
            (r) => r.status,
            () => 0,
          )
        : 0;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const readyMs = performance.now() - started;
    const cpu = cpuMs(child.pid!);
    if (starter.says && !starter.says.test(printed)) {
      throw new Error(`${starter.name} did not say ${starter.says}: ${printed}`);
    }
    await new Promise((r) => setTimeout(r, IDLE_AFTER_MS));
    const tree = [child.pid!, ...liveDescendants(child.pid!).filter((pid) => pid !== child.pid)];
    return {
      readyMs,
      cpuMs: cpu,
      rssMiB: rssMiB(child.pid!),
      treeMiB: tree.reduce((sum, pid) => sum + rssMiB(pid), 0),
    };
  } finally {
    if (!exited) {
      process.kill(-child.pid!, starter.stopSignal ?? "SIGTERM");
      const killer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
      await exit;
      clearTimeout(killer);
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The build in dist/ made current (a source may change during the bench; others edit lib/). */
const buildIfStale = () => ensureBuilt().finally(() => stopEsbuild());

export async function run(setup: { modelUrl: string }): Promise<void> {
  const built = await buildIfStale();
  const tsx = (main: string): ColdStarter["command"] => [process.execPath, "--import", "tsx", main];
  const starters: ColdStarter[] = [
    {
      name: "built entry (node bin/wayfarer-service → dist/)",
      command: [process.execPath, join(ROOT, "bin", "wayfarer-service")],
      env: ourEnv(setup.modelUrl),
      listening: OUR_LISTENING,
      before: buildIfStale,
      says: /running the build in dist\//,
    },
    {
      name: "lib/ under tsx (this tree)",
      command: tsx(join(ROOT, "lib", "service", "main.ts")),
      env: ourEnv(setup.modelUrl),
      listening: OUR_LISTENING,
    },
  ];
  const before = process.env.BENCH_BEFORE;
  if (before) {
    starters.push({
      name: `at ${before} (under tsx)`,
      command: tsx(unpackBefore(before)),
      env: ourEnv(setup.modelUrl),
      listening: OUR_LISTENING,
    });
  }
  const reference = await referenceStarter(setup.modelUrl);
  if (reference) starters.push(reference);

  await coldStarts(starters, built);
}

/** Starts each of `starters` ROUNDS + 1 times, alternating, and prints the medians. */
export async function coldStarts(starters: ColdStarter[], built = false): Promise<void> {
  const starts = starters.map((): Start[] => []);
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [i, starter] of starters.entries()) {
      const start = await startOnce(starter);
      // Round 0 warms the disk cache and the machine: not counted.
      if (round > 0) starts[i]!.push(start);
    }
  }

  const [load] = loadavg();
  console.log(
    `cold start: spawn → first 200 of /readyz, CPU spent until then, RSS ${IDLE_AFTER_MS / 1000} s later (the process; its tree), no browser; medians of ${ROUNDS} alternating starts${built ? " (dist/ built first)" : ""}; load average ${load!.toFixed(1)} on 2 cores`,
  );
  const first = starts[0]!;
  const of = (list: Start[], key: keyof Start) => median(list.map((s) => s[key]));
  const ratio = (list: Start[], key: keyof Start) => (of(list, key) / of(first, key)).toFixed(2);
  for (const [i, starter] of starters.entries()) {
    const list = starts[i]!;
    console.log(
      `${starter.name.padEnd(50)} ready ${of(list, "readyMs").toFixed(0).padStart(5)} ms (${ratio(list, "readyMs")}×)` +
        `  cpu ${of(list, "cpuMs").toFixed(0).padStart(5)} ms (${ratio(list, "cpuMs")}×)` +
        `  rss ${of(list, "rssMiB").toFixed(0).padStart(4)} MiB (${ratio(list, "rssMiB")}×)` +
        `  tree ${of(list, "treeMiB").toFixed(0).padStart(4)} MiB`,
    );
  }
}
