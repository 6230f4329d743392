/**
 * Memory per session of the HTTP service: SESSIONS sessions open and idle, each after one
 * navigate to the shop page, then measured: the service process's RSS (against its RSS with no
 * session, just before they opened), and each session browser's private memory, RssAnon +
 * RssShmem over its process group as the watchdog reads it (lib/service/sessionWatch.ts). A
 * browser is a child of the service that leads its own group and has a remote-debugging switch
 * on its command line (the lifeline's shell leads a group too).
 *
 * With BENCH_BEFORE=<commit>, the service as it was at that commit (bench/beforeService.ts) is
 * measured the same way in the same run, the two taking turns (now, before, before, now, …),
 * after one uncounted round of each.
 *
 *   npm run bench:memory        BENCH_BEFORE=18d00db BENCH_ROUNDS=4 npm run bench:memory
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { groupMemory } from "../lib/service/sessionWatch.js";
import { type ServiceProcess, startService } from "../test/support/serviceProcess.js";
import { serviceBefore } from "./beforeService.js";
import { median } from "./median.js";
import { startBenchServer } from "./snapshot/server.js";
import { postV1 } from "./v1Post.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/** How long the sessions sit idle after their navigate before the first sample. */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 3_000);
const SAMPLES = 3;
const KEY = "bench-memory-key-0123456789abcdef";
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench-memory" };
const MB = 1024 * 1024;

const pages = await startBenchServer();
const pageUrl = `${pages.origin}/fixtures/outline/shop.html`;
const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-bench-memory-"));
const serviceEnv = (dir: string) => ({
  WAYFARER_DATA_DIR: dir,
  WAYFARER_API_KEYS: `bench:${KEY}`,
  WAYFARER_ALLOW_HOSTS: "127.0.0.1",
  WAYFARER_MAX_SESSIONS: String(SESSIONS),
});
const BEFORE = process.env.BENCH_BEFORE;
type Side = "now" | "before";
const services = new Map<Side, ServiceProcess>([["now", await startService(serviceEnv(dataDir))]]);
const before = await serviceBefore(BEFORE, serviceEnv);
if (before) services.set("before", before);

async function post(base: string, path: string, body: unknown) {
  const { json } = await postV1(
    base,
    { "x-wf-api-key": KEY, "x-model-api-key": MODEL.apiKey },
    path,
    body,
  );
  if (!json.success) throw new Error(`${path}: ${JSON.stringify(json).slice(0, 300)}`);
  return json.data as Record<string, unknown>;
}

function readOr(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** Resident memory of one process, bytes. */
const rss = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readOr(`/proc/${pid}/status`))?.[1] ?? 0) * 1024;

/** Every live process: its parent and its group (the name in /proc's stat may hold anything). */
function processes(): { pid: number; ppid: number; pgrp: number }[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => {
      const stat = readOr(`/proc/${name}/stat`);
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return { pid: Number(name), ppid: Number(ppid), pgrp: Number(pgrp) };
    });
}

/** The service's browsers: its children that lead their own group, started with a CDP switch. */
const browsersOf = (servicePid: number) =>
  processes()
    .filter(
      (p) =>
        p.ppid === servicePid &&
        p.pgrp === p.pid &&
        readOr(`/proc/${p.pid}/cmdline`).includes("--remote-debugging-"),
    )
    .map((p) => p.pid);

interface Figures {
  /** The service's RSS with no session, and with SESSIONS open. */
  idleRss: number;
  openRss: number;
  /** Each browser's private memory. */
  browsers: number[];
  /** Processes per browser group. */
  processes: number[];
}
const figures: Record<Side, Figures[]> = { now: [], before: [] };

async function round(side: Side): Promise<Figures> {
  const service = services.get(side)!;
  const pid = service.child.pid!;
  const idleRss = rss(pid);
  const ids = await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const { sessionId } = await post(service.url, "/sessions/start", {
        modelName: MODEL.modelName,
      });
      await post(service.url, `/sessions/${sessionId}/navigate`, { url: pageUrl, options: {} });
      return sessionId as string;
    }),
  );
  await sleep(IDLE_MS);
  const samples: { rss: number; browsers: Map<number, number> }[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    if (i) await sleep(500);
    const leaders = browsersOf(pid);
    if (leaders.length !== SESSIONS) throw new Error(`${side}: ${leaders.length} browsers`);
    samples.push({ rss: rss(pid), browsers: await groupMemory(new Set(leaders)) });
  }
  const leaders = [...samples[0]!.browsers.keys()];
  const all = processes();
  const groupSize = (leader: number) => all.filter((p) => p.pgrp === leader).length;
  const result: Figures = {
    idleRss,
    openRss: median(samples.map((s) => s.rss)),
    browsers: leaders.map((leader) => median(samples.map((s) => s.browsers.get(leader) ?? 0))),
    processes: leaders.map(groupSize),
  };
  await Promise.all(ids.map((id) => post(service.url, `/sessions/${id}/end`, {})));
  // Let the service collect what the sessions left before the next round reads its idle RSS.
  await sleep(1_000);
  return result;
}

const sides: Side[] = before ? ["now", "before"] : ["now"];
for (const side of sides) await round(side);
for (let i = 0; i < ROUNDS; i++) {
  for (const side of i % 2 ? [...sides].reverse() : sides) figures[side].push(await round(side));
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
console.log(
  `${SESSIONS} sessions open and idle (${IDLE_MS / 1000} s after one navigate each), ${ROUNDS} rounds${BEFORE ? `, now and at ${BEFORE} in turns` : ""}; medians`,
);
const summary = (side: Side) => {
  const rounds = figures[side];
  const perSession = median(rounds.map((r) => (r.openRss - r.idleRss) / SESSIONS));
  const browsers = rounds.flatMap((r) => r.browsers);
  return {
    idle: median(rounds.map((r) => r.idleRss)),
    open: median(rounds.map((r) => r.openRss)),
    perSession,
    browser: median(browsers),
    low: Math.min(...browsers),
    high: Math.max(...browsers),
    processes: median(rounds.flatMap((r) => r.processes)),
  };
};
for (const side of sides) {
  const s = summary(side);
  console.log(
    `${(side === "now" ? "now" : `at ${BEFORE}`).padEnd(12)} service RSS ${mb(s.idle)} idle, ${mb(s.open)} with ${SESSIONS} open: +${mb(s.perSession)} per session; browser private ${mb(s.browser)} per session (${mb(s.low)}–${mb(s.high)}), ${s.processes} processes each`,
  );
}
if (before) {
  const n = summary("now");
  const b = summary("before");
  console.log(
    `now / before: service RSS with ${SESSIONS} open ${(n.open / b.open).toFixed(3)}×, per session ${(n.perSession / b.perSession).toFixed(2)}×; browser private per session ${(n.browser / b.browser).toFixed(3)}×`,
  );
}

for (const service of services.values()) {
  service.child.kill("SIGTERM");
  await service.exited;
}
await rm(dataDir, { recursive: true, force: true });
await pages.close();
