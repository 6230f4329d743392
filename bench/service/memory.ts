/**
 * Issue 44, item 2: memory per session, counted honestly. Per side and per level (1, 4, 8
 * sessions): the PSS of the side's whole process tree (a page shared by n processes counts 1/n
 * in each: Chromium's processes share much), read from /proc/<pid>/smaps_rollup, with the
 * sessions open, each sent to the shop fixture and then left idle, beside the same tree with no
 * session. Our side keeps its warm browsers as the service does by default on this machine
 * (BENCH_MEMORY_WARM, default 1), counted; the reference has none. Sides alternate; medians
 * over BENCH_MEMORY_ROUNDS rounds of SAMPLES reads each.
 *
 *   BENCH_SECTIONS=memory npm run bench:service     BENCH_MEMORY_LEVELS=1,4,8 BENCH_MEMORY_ROUNDS=2
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { liveDescendants } from "../../test/support/processes.js";
import { median } from "../median.js";
import { startBenchServer } from "../snapshot/server.js";
import { type Kind, kindOf } from "./processCpu.js";
import { openSession, postTo, type ServiceSide, startSides } from "./sides.js";

const LEVELS = (process.env.BENCH_MEMORY_LEVELS ?? "1,4,8").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 2);
const WARM = process.env.BENCH_MEMORY_WARM ?? "1";
const IDLE_MS = 3_000;
const SAMPLES = 3;
const MiB = 1024 * 1024;

/** PSS of one process, bytes; 0 once it is gone. */
function pssOf(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The tree's PSS: the server's own, Chromium's (every process of its browsers), the rest's. */
function treePss(root: number): { service: number; chromium: number; other: number } {
  const out = { service: pssOf(root), chromium: 0, other: 0 };
  for (const pid of liveDescendants(root)) {
    const kind: Kind = kindOf(pid, root);
    if (kind === "other") out.other += pssOf(pid);
    else out.chromium += pssOf(pid);
  }
  return out;
}

const total = (p: ReturnType<typeof treePss>) => p.service + p.chromium + p.other;

async function sampled(root: number) {
  const reads: ReturnType<typeof treePss>[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    reads.push(treePss(root));
    await sleep(500);
  }
  const by = (key: keyof ReturnType<typeof treePss>) => median(reads.map((r) => r[key]));
  return { service: by("service"), chromium: by("chromium"), other: by("other") };
}

/** N sessions open and idle on the page; their tree's PSS; then ended. */
async function measure(side: ServiceSide, sessions: number, url: string) {
  const idle = await sampled(side.pid);
  const ids = await Promise.all(Array.from({ length: sessions }, () => openSession(side, url)));
  await sleep(IDLE_MS);
  const open = await sampled(side.pid);
  await Promise.all(ids.map((id) => postTo(side, `/sessions/${id}/end`, {})));
  // The ended sessions' browsers gone (a warm browser may take a place meanwhile).
  await sleep(3_000);
  return { idle, open };
}

export async function run(setup: { modelUrl: string }): Promise<void> {
  const pages = await startBenchServer();
  const url = `${pages.origin}/fixtures/outline/shop.html`;
  const sides = await startSides({
    modelUrl: setup.modelUrl,
    sessions: Math.max(...LEVELS),
    env: { WAYFARER_WARM_BROWSERS: WARM },
  });
  try {
    // The service's warm browsers launched and settled before anything is read.
    await sleep(5_000);
    for (const level of LEVELS) {
      const results = new Map<ServiceSide, Awaited<ReturnType<typeof measure>>[]>(
        sides.map((s) => [s, []]),
      );
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) results.get(side)!.push(await measure(side, level, url));
      }
      console.log(
        `PSS of the whole process tree, MiB, ${level} session${level === 1 ? "" : "s"} open and idle on the shop fixture (ours with ${WARM} warm browser${WARM === "1" ? "" : "s"}), median of ${ROUNDS} alternating rounds`,
      );
      console.log(
        "  side              open: total  service  chromium  other   no session   per session (total / n)",
      );
      const reference = sides.find((s) => s.name === "reference");
      const totalOf = (side: ServiceSide) => median(results.get(side)!.map((r) => total(r.open)));
      for (const side of sides) {
        const rows = results.get(side)!;
        const at = (key: "service" | "chromium" | "other") =>
          median(rows.map((r) => r.open[key])) / MiB;
        const idle = median(rows.map((r) => total(r.idle))) / MiB;
        const all = totalOf(side) / MiB;
        const vs =
          reference && reference !== side
            ? `  ${(totalOf(side) / totalOf(reference)).toFixed(2)}× the reference`
            : "";
        console.log(
          `  ${side.name.padEnd(16)} ${all.toFixed(0).padStart(11)} ${at("service").toFixed(0).padStart(8)} ${at("chromium").toFixed(0).padStart(9)} ${at("other").toFixed(0).padStart(6)} ${idle.toFixed(0).padStart(12)} ${(all / level).toFixed(0).padStart(12)}${vs}`,
        );
      }
    }
  } finally {
    for (const side of sides) await side.stop().catch(() => {});
    await pages.close();
  }
}
