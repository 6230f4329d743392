/**
 * Issue 34, item 1: CPU per operation, throughput, and the first extract of a session.
 *
 * Each side gets the same rounds: N sessions (1, 4, 8) started and sent to the page (not
 * counted), then, counted, each session runs navigate → observe → act → extract LOOPS times,
 * every operation of a loop at once across the sessions (a barrier between them, so the CPU
 * read at each barrier is that operation's). CPU is read from /proc for the side's own process
 * and every process under it, Chromium's split by --type (processCpu.ts), and divided by the
 * operations done. Sides alternate round by round; a warm-up round per side is not counted;
 * figures are medians over rounds. Pages: the shop fixture, and a heavier page at 4 sessions
 * (a generated ~3,000-element shop with the fixture's tea list inside, so the same scripted
 * model answers: several chunks, open shadow roots, a same-origin frame).
 *
 * Each call asks in its own words, so with the server cache on (BENCH_CPU_CACHE=on, the default,
 * as a service runs) every call is a miss that reads the page for its key and asks the model.
 *
 *   BENCH_SECTIONS=cpu npm run bench:service     (BENCH_BEFORE=<commit>, BENCH_REFERENCE=<entry>)
 *   BENCH_CPU_ROUNDS=3 BENCH_CPU_LEVELS=1,4,8 BENCH_CPU_PAGES=shop,heavy BENCH_CPU_CACHE=on|off
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { median } from "../median.js";
import { shopPage } from "../snapshot/pages.js";
import { startBenchServer } from "../snapshot/server.js";
import { type CpuByKind, CpuMeter, KINDS, minusCpu, zeroCpu } from "./processCpu.js";
import { openSession, postTo, type ServiceSide, startSides } from "./sides.js";

const ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 3);
const LEVELS = (process.env.BENCH_CPU_LEVELS ?? "1,4,8").split(",").map(Number);
const HEAVY_LEVEL = 4;
/** The service's server cache: on by default, as a service runs unless told otherwise. */
const CACHE = process.env.BENCH_CPU_CACHE ?? "on";
/** Which pages: BENCH_CPU_PAGES=shop,heavy (both by default). */
const PAGES = (process.env.BENCH_CPU_PAGES ?? "shop,heavy").split(",");
const LOOPS = 3;
const OPS = ["navigate", "observe", "act", "extract"] as const;
type Op = (typeof OPS)[number];

interface Round {
  /** CPU ms by operation, by process kind. */
  cpu: Record<Op, CpuByKind>;
  /** CPU ms of starting the sessions (with their first navigate) and of ending them. */
  startEnd: CpuByKind;
  ops: number;
  wallMs: number;
  /** Latency of each operation's first run in a session, and of its later runs. */
  first: Record<Op, number[]>;
  later: Record<Op, number[]>;
  failures: string[];
}

const perOp = <T>(make: () => T) =>
  Object.fromEntries(OPS.map((op) => [op, make()])) as Record<Op, T>;

/** The request each operation sends; `check` says whether its answer did the job. */
let calls = 0;
/** Each instruction once: with the server cache on, every call is a miss that asks the model. */
const once = (instruction: string) => `${instruction} (call ${++calls})`;

const CALLS: Record<Op, (url: string) => { body: unknown; check: (data: unknown) => boolean }> = {
  navigate: (url) => ({ body: { url, options: {} }, check: () => true }),
  observe: () => ({
    body: { instruction: once("find the add to cart button of green tea"), options: {} },
    check: (d) => JSON.stringify(d).includes("xpath="),
  }),
  act: () => ({
    body: { input: once("add black tea to the cart"), options: {} },
    check: (d) => (d as { result?: { success?: boolean } })?.result?.success === true,
  }),
  extract: () => ({
    body: { instruction: once("what the cart says"), options: {} },
    check: (d) => JSON.stringify(d).includes("Cart: black"),
  }),
};

async function oneRound(side: ServiceSide, sessions: number, url: string): Promise<Round> {
  const meter = new CpuMeter(side.pid);
  const ids = await Promise.all(Array.from({ length: sessions }, () => openSession(side, url)));
  const started = meter.mark();
  const round: Round = {
    cpu: perOp(zeroCpu),
    startEnd: started,
    ops: 0,
    wallMs: 0,
    first: perOp(() => []),
    later: perOp(() => []),
    failures: [],
  };
  const t0 = performance.now();
  let before = started;
  try {
    for (let loop = 0; loop < LOOPS; loop++) {
      for (const op of OPS) {
        const { body, check } = CALLS[op](url);
        await Promise.all(
          ids.map(async (id) => {
            const answer = await postTo(side, `/sessions/${id}/${op}`, body);
            (loop === 0 ? round.first : round.later)[op].push(answer.ms);
            if (answer.status !== 200 || !check(answer.json.data)) {
              round.failures.push(
                `${op}: ${answer.status} ${JSON.stringify(answer.json).slice(0, 200)}`,
              );
            }
          }),
        );
        const now = meter.mark();
        const spent = minusCpu(now, before);
        for (const k of KINDS) round.cpu[op][k] += spent[k];
        before = now;
        round.ops += ids.length;
      }
    }
    round.wallMs = performance.now() - t0;
  } finally {
    await Promise.all(ids.map((id) => postTo(side, `/sessions/${id}/end`, {}).catch(() => {})));
    const ended = minusCpu(meter.mark(), before);
    for (const k of KINDS) round.startEnd[k] += ended[k];
    meter.stop();
  }
  return round;
}

/** The fixture's tea list and cart line at the top of a generated shop's main column. */
async function serveHeavyShop(benchOrigin: string) {
  const fixture = readFileSync(
    join(import.meta.dirname, "..", "..", "test", "fixtures", "outline", "shop.html"),
    "utf8",
  );
  const teas = fixture.slice(fixture.indexOf("<ul>"), fixture.indexOf("</body>"));
  const page = shopPage(3000)
    .replace("<head>", `<head><base href="${benchOrigin}/generated/">`)
    .replace('<main id="main">', `<main id="main">${teas}`);
  const server = createServer((_, res) =>
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/heavy-shop.html`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const chromiumOf = (c: CpuByKind) =>
  c.browser + c.renderer + c.gpu + c.network + c.utility + c.zygote;
const total = (r: Round): CpuByKind => {
  const sum = zeroCpu();
  for (const op of OPS) for (const k of KINDS) sum[k] += r.cpu[op][k];
  return sum;
};
const f1 = (x: number) => x.toFixed(1).padStart(6);

function report(title: string, sides: ServiceSide[], rounds: Map<string, Round[]>): void {
  console.log(title);
  console.log(
    "  side            service  chromium (browser renderer    gpu network utility)   other   ops/s   service× chromium×",
  );
  let base: { node: number; chromium: number } | undefined;
  for (const side of sides) {
    const rs = rounds.get(side.name) ?? [];
    const per = (pick: (c: CpuByKind) => number) => median(rs.map((r) => pick(total(r)) / r.ops));
    const node = per((c) => c.service);
    const chromium = per(chromiumOf);
    base ??= { node, chromium };
    const opsPerS = median(rs.map((r) => (r.ops / r.wallMs) * 1000));
    console.log(
      `  ${side.name.padEnd(14)} ${f1(node)}  ${f1(chromium)}   ${f1(per((c) => c.browser))} ${f1(per((c) => c.renderer))} ${f1(per((c) => c.gpu))} ${f1(per((c) => c.network))} ${f1(per((c) => c.utility + c.zygote))}  ${f1(per((c) => c.other))}  ${f1(opsPerS)}   ${(node / base.node).toFixed(2).padStart(6)}× ${(chromium / base.chromium).toFixed(2).padStart(7)}×`,
    );
    const byOp = OPS.map((op) => {
      const n = median(rs.map((r) => r.cpu[op].service / (r.ops / OPS.length)));
      const c = median(rs.map((r) => chromiumOf(r.cpu[op]) / (r.ops / OPS.length)));
      return `${op} ${n.toFixed(1)}/${c.toFixed(1)}`;
    });
    console.log(`  ${"".padEnd(14)} by operation, service/chromium ms: ${byOp.join(", ")}`);
    const lat = OPS.map((op) => {
      const first = median(rs.flatMap((r) => r.first[op]));
      const later = median(rs.flatMap((r) => r.later[op]));
      return `${op} ${first.toFixed(0)}/${later.toFixed(0)}`;
    });
    console.log(`  ${"".padEnd(14)} p50 ms, first in a session/later: ${lat.join(", ")}`);
    const perSession = (pick: (c: CpuByKind) => number) =>
      median(rs.map((r) => (pick(r.startEnd) * OPS.length * LOOPS) / r.ops));
    console.log(
      `  ${"".padEnd(14)} a session's start (with its first navigate) and end, ms: service ${perSession((c) => c.service).toFixed(0)}, chromium ${perSession(chromiumOf).toFixed(0)}`,
    );
    const failures = rs.flatMap((r) => r.failures);
    if (failures.length)
      console.log(`  ${"".padEnd(14)} ${failures.length} failed, e.g. ${failures[0]}`);
  }
}

/** The figures on sides already started (each with room for the most sessions of LEVELS, and 4). */
export async function compareCpu(sides: ServiceSide[]): Promise<void> {
  const pages = await startBenchServer();
  const heavy = await serveHeavyShop(pages.origin);
  const shopUrl = `${pages.origin}/fixtures/outline/shop.html`;
  const load = loadavg()[0]!.toFixed(2);
  try {
    const plan: { label: string; sessions: number; url: string }[] = [
      ...LEVELS.map((n) => ({
        label: `shop fixture, ${n} session${n > 1 ? "s" : ""}`,
        sessions: n,
        url: shopUrl,
      })),
      {
        label: `heavier page (~3,000 elements), ${HEAVY_LEVEL} sessions`,
        sessions: HEAVY_LEVEL,
        url: heavy.url,
      },
    ].filter((step) => PAGES.includes(step.url === shopUrl ? "shop" : "heavy"));
    // Warm-up (JIT, the model layer, the first launches), not counted.
    for (const side of sides) await oneRound(side, Math.min(2, ...LEVELS), shopUrl);
    for (const step of plan) {
      const rounds = new Map<string, Round[]>();
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 ? [...sides].reverse() : sides;
        for (const side of order) {
          const done = await oneRound(side, step.sessions, step.url);
          rounds.set(side.name, [...(rounds.get(side.name) ?? []), done]);
        }
      }
      report(
        `CPU per operation, ms (navigate → observe → act → extract ×${LOOPS} per session, server cache ${CACHE}, every call a miss), ${step.label}, median of ${ROUNDS} alternating rounds`,
        sides,
        rounds,
      );
    }
    console.log(
      `  (load average at the start ${load}, at the end ${loadavg()[0]!.toFixed(2)}; 2 cores shared)`,
    );
  } finally {
    await heavy.close();
    await pages.close();
  }
}

export async function run(setup: { modelUrl: string }): Promise<void> {
  const sides = await startSides({
    modelUrl: setup.modelUrl,
    sessions: Math.max(...LEVELS, HEAVY_LEVEL),
    // As the service runs by default: a call's outline is read for the cache key.
    env: { WAYFARER_SERVER_CACHE: CACHE },
  });
  try {
    await compareCpu(sides);
  } finally {
    for (const side of sides) await side.stop();
  }
}
