/**
 * `/start` with warm browsers (issue 34, item 4): the time a caller waits for POST
 * /v1/sessions/start, on this tree with WAYFARER_WARM_BROWSERS=1 ("now, warm 1") and =0 ("now,
 * warm 0"), and on BENCH_BEFORE's service when set, each a service process of its own.
 *
 * - One after another: a start, its end, then a pause that lets the pool refill (until
 *   /metrics says a browser waits again, then 1 s more; the same pause on every side), in
 *   alternating rounds, a warm-up round not counted. p50 and p95 of the start.
 * - A burst larger than the pool: BENCH_BURST starts at once (default 3, the pool holds 1), each
 *   timed; the first answered is the one the pool served, the others are what a caller waits
 *   once the pool is empty (their p50 beside the side without a pool's).
 *
 *   BENCH_SECTIONS=startPool npm run bench:service     BENCH_STARTS=20 BENCH_BURST=4
 */
import { median } from "../median.js";
import { postTo, type ServiceSide, startBefore, startNow } from "./sides.js";

const ROUNDS = Number(process.env.BENCH_STARTS ?? 12);
const BURST = Number(process.env.BENCH_BURST ?? 3);
const BURSTS = 3;
const REFILL_PAUSE_MS = 1_000;

interface Measured {
  side: ServiceSide;
  pooled: boolean;
  starts: number[];
  burstFirst: number[];
  burstRest: number[];
  failures: string[];
}

export async function run(setup: { modelUrl: string }): Promise<void> {
  const sessions = BURST + 1;
  const named = (side: ServiceSide, name: string): ServiceSide => ({ ...side, name });
  const sides: Measured[] = [];
  const add = (side: ServiceSide | undefined, pooled: boolean) => {
    if (side) sides.push({ side, pooled, starts: [], burstFirst: [], burstRest: [], failures: [] });
  };
  try {
    add(
      named(
        await startNow({ ...setup, sessions, env: { WAYFARER_WARM_BROWSERS: "1" } }),
        "now, warm 1",
      ),
      true,
    );
    add(
      named(
        await startNow({ ...setup, sessions, env: { WAYFARER_WARM_BROWSERS: "0" } }),
        "now, warm 0",
      ),
      false,
    );
    add(await startBefore({ ...setup, sessions }), false);

    for (let round = 0; round <= ROUNDS; round++) {
      // Alternating which side goes first, so neither always follows the other's launch.
      const order = round % 2 ? [...sides].reverse() : sides;
      for (const measured of order) {
        await settle(measured);
        const ms = await startAndEnd(measured);
        if (round > 0 && ms !== undefined) measured.starts.push(ms);
      }
    }
    for (let burst = 0; burst < BURSTS; burst++) {
      for (const measured of sides) {
        await settle(measured);
        await burstOf(measured);
      }
    }
  } finally {
    await Promise.all(sides.map((s) => s.side.stop()));
  }
  print(sides);
}

/** Until the side's pool has a browser waiting (a side without one: as long as the pool side's wait). */
async function settle(measured: Measured): Promise<void> {
  if (measured.pooled) {
    const until = Date.now() + 30_000;
    while ((await warmOf(measured.side)) < 1 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await new Promise((r) => setTimeout(r, REFILL_PAUSE_MS));
}

async function warmOf(side: ServiceSide): Promise<number> {
  const text = await fetch(`${side.url}/metrics`).then((r) => r.text());
  return Number(/^wayfarer_warm_browsers (\d+)/m.exec(text)?.[1] ?? 0);
}

async function startAndEnd(measured: Measured): Promise<number | undefined> {
  const started = await postTo(measured.side, "/sessions/start", measured.side.startBody());
  const id = (started.json.data as { sessionId?: string } | undefined)?.sessionId;
  if (!started.json.success || !id) {
    measured.failures.push(`start ${started.status}`);
    return undefined;
  }
  await postTo(measured.side, `/sessions/${id}/end`, {});
  return started.ms;
}

async function burstOf(measured: Measured): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: BURST }, () =>
      postTo(measured.side, "/sessions/start", measured.side.startBody()),
    ),
  );
  const ok = answers.filter((a) => a.json.success);
  for (const failed of answers.filter((a) => !a.json.success)) {
    measured.failures.push(`burst start ${failed.status}`);
  }
  const times = ok.map((a) => a.ms).sort((a, b) => a - b);
  if (times.length) {
    measured.burstFirst.push(times[0]!);
    measured.burstRest.push(...times.slice(1));
  }
  await Promise.all(
    ok.map((a) =>
      postTo(
        measured.side,
        `/sessions/${(a.json.data as { sessionId: string }).sessionId}/end`,
        {},
      ),
    ),
  );
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1]!;

function print(sides: Measured[]): void {
  console.log(
    `/start, ms: ${ROUNDS} starts one after another (a pause lets the pool refill), then ${BURSTS} bursts of ${BURST} at once; p50 (p95), ratio to the first side`,
  );
  const first = sides[0];
  const base = first?.starts.length ? median(first.starts) : undefined;
  for (const m of sides) {
    if (!m.starts.length) {
      console.log(`  ${m.side.name.padEnd(14)} no start measured (${m.failures.join("; ")})`);
      continue;
    }
    const p50 = median(m.starts);
    const ratio = base ? `${(p50 / base).toFixed(2)}×` : "";
    const burst = m.burstRest.length
      ? `; burst: first ${median(m.burstFirst).toFixed(0)}, the others ${median(m.burstRest).toFixed(0)} (${p95(m.burstRest).toFixed(0)})`
      : "";
    console.log(
      `  ${m.side.name.padEnd(14)} ${p50.toFixed(0)} (${p95(m.starts).toFixed(0)}) ${ratio}${burst}${m.failures.length ? `; failed: ${m.failures.join(", ")}` : ""}`,
    );
  }
}
