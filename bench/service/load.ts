/**
 * The HTTP service under load on this machine: SESSIONS concurrent sessions, each navigate →
 * act → extract, with the service in a process of its own (`npm run service`, started by
 * test/support/serviceProcess.ts), next to the same SESSIONS concurrent runs done in-process
 * with the library in the same run. Both reach the same instantly answering model, the model kit
 * served over HTTP from this process (test/support/llm/modelHttp.ts), so both pay the same model
 * path. Per operation: p50 and p95 latency over HTTP and in-process, and what the service adds;
 * the throughput of each; memory per session (the service process, its Chromium; the same for the
 * in-process runs). Goal (issue 17): p95 added under 50 ms.
 *
 * With BENCH_BEFORE=<commit>, the other side is not the library in-process but the service as
 * it was at that commit (unpacked with `git archive` beside this tree), in the same rounds: the
 * figure of a change to the service next to its baseline.
 *
 *   npm run bench:service        BENCH_SESSIONS=10 npm run bench:service
 *   BENCH_BEFORE=ed006c5 npm run bench:service
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../../lib/index.js";
import type { ModelKitServer } from "../../test/support/llm/modelHttp.js";
import { liveDescendants } from "../../test/support/processes.js";
import { startService } from "../../test/support/serviceProcess.js";
import { serviceBefore } from "../beforeService.js";
import { median } from "../median.js";
import { startBenchServer } from "../snapshot/server.js";
import { postV1 } from "../v1Post.js";

/** The section: `kit` is the model kit every side's service and the in-process clients ask. */
export async function run({ kit }: { modelUrl: string; kit: ModelKitServer }): Promise<void> {
  const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 20);
  const KEY = "bench-key-0123456789abcdef";
  const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench-service" };
  const HEADERS = { "x-wf-api-key": KEY, "x-model-api-key": MODEL.apiKey };

  const pages = await startBenchServer();
  const pageUrl = `${pages.origin}/fixtures/outline/shop.html`;
  const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-bench-service-"));
  const serviceEnv = (dir: string) => ({
    WAYFARER_DATA_DIR: dir,
    WAYFARER_API_KEYS: `bench:${KEY}`,
    WAYFARER_ALLOW_HOSTS: "127.0.0.1",
    WAYFARER_MAX_SESSIONS: String(SESSIONS),
    WAYFARER_RATE_LIMIT: "1000000",
    // Every run asks the model, as the in-process runs do.
    WAYFARER_SERVER_CACHE: "off",
    // No browser waiting ahead (a section that measures the pool sets it): its launches and
    // idle browser would count in the figures of the others.
    WAYFARER_WARM_BROWSERS: "0",
    OPENAI_BASE_URL: kit.url,
  });
  const service = await startService(serviceEnv(dataDir));
  const servicePid = service.child.pid!;

  const BEFORE = process.env.BENCH_BEFORE;
  const beforeService = await serviceBefore(BEFORE, serviceEnv);

  type Op = "navigate" | "act" | "extract";
  type Side = "service" | "local";
  const times = { service: new Map<Op, number[]>(), local: new Map<Op, number[]>() };
  const note = (where: Side, op: Op, ms: number) =>
    times[where].set(op, [...(times[where].get(op) ?? []), ms]);
  // A run whose act did not click measures something else: counted and shown.
  const failures: string[] = [];

  /** Per operation, the round trip minus the operation's own time (its server-timing): HTTP and the service's share. */
  const overhead = new Map<Op, number[]>();

  async function post(
    path: string,
    body: unknown,
    op?: Op,
    base = service.url,
  ): Promise<{ success: boolean; data?: unknown }> {
    const { json, ms, own } = await postV1(base, HEADERS, path, body);
    if (op && own !== undefined && base === service.url) {
      overhead.set(op, [...(overhead.get(op) ?? []), ms - own]);
    }
    return { ...json, success: json.success === true };
  }

  async function timed<T>(where: Side, op: Op, work: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    const result = await work();
    note(where, op, performance.now() - t0);
    return result;
  }

  /** Resident memory of one process, KB (0 once it is gone). */
  function rssKb(pid: number): number {
    try {
      const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }
  const sumRssKb = (pids: number[]) => pids.reduce((sum, pid) => sum + rssKb(pid), 0);

  /** Both sides' memory now: each Node process, and the browsers under it. */
  function memoryNow() {
    return {
      serviceKb: rssKb(servicePid),
      serviceBrowsersKb: sumRssKb(liveDescendants(servicePid).filter((p) => p !== servicePid)),
      // With BENCH_BEFORE, the other side is that service's process and its browsers.
      localKb: rssKb(otherPid),
      // The services' processes are our children too, but not browsers of ours.
      localBrowsersKb: sumRssKb(
        liveDescendants(otherPid).filter((p) => p !== servicePid && p !== beforeService?.child.pid),
      ),
    };
  }
  const otherPid = beforeService?.child.pid ?? process.pid;
  type Memory = ReturnType<typeof memoryNow>;
  const maxOf = (a: Memory, b: Memory): Memory => ({
    serviceKb: Math.max(a.serviceKb, b.serviceKb),
    serviceBrowsersKb: Math.max(a.serviceBrowsersKb, b.serviceBrowsersKb),
    localKb: Math.max(a.localKb, b.localKb),
    localBrowsersKb: Math.max(a.localBrowsersKb, b.localBrowsersKb),
  });
  let peak = memoryNow();
  const sampler = setInterval(() => {
    peak = maxOf(peak, memoryNow());
  }, 200);

  /** One session's run through a service: this tree's, or (side "local") the one of BENCH_BEFORE. */
  async function viaService(base = service.url, side: Side = "service"): Promise<void> {
    const started = await post("/sessions/start", { modelName: MODEL.modelName }, undefined, base);
    if (!started.success) throw new Error(`no session: ${JSON.stringify(started)}`);
    const { sessionId } = started.data as { sessionId: string };
    try {
      await timed(side, "navigate", () =>
        post(`/sessions/${sessionId}/navigate`, { url: pageUrl, options: {} }, "navigate", base),
      );
      const acted = await timed(side, "act", () =>
        post(
          `/sessions/${sessionId}/act`,
          { input: "add black tea to the cart", options: {} },
          "act",
          base,
        ),
      );
      const actedResult = (acted.data as { result?: { success?: boolean } } | undefined)?.result;
      if (!acted.success || !actedResult?.success)
        failures.push(`${side} act: ${JSON.stringify(acted)}`);
      const extracted = await timed(side, "extract", () =>
        post(
          `/sessions/${sessionId}/extract`,
          { instruction: "what the cart says", options: {} },
          "extract",
          base,
        ),
      );
      if (!JSON.stringify(extracted).includes("Cart: black")) {
        failures.push(`${side} extract: ${JSON.stringify(extracted)}`);
      }
    } finally {
      await post(`/sessions/${sessionId}/end`, {}, undefined, base);
    }
  }
  /** The other side: the service at BENCH_BEFORE, or the library in-process. */
  const other = (): Promise<void> =>
    beforeService ? viaService(beforeService.url, "local") : inProcess();

  async function inProcess(): Promise<void> {
    const client = new Client({
      env: "LOCAL",
      verbose: 0,
      disablePino: true,
      model: MODEL,
      // BENCH_LOCAL_EGRESS=1: the in-process browsers under the same egress guard as the service's.
      ...(process.env.BENCH_LOCAL_EGRESS ? { egress: { allowHosts: ["127.0.0.1"] } } : {}),
    });
    await client.init();
    try {
      const page = client.context.activePage()!;
      await timed("local", "navigate", () => page.goto(pageUrl));
      const acted = await timed("local", "act", () => client.act("add black tea to the cart"));
      if (!acted.success) failures.push(`in-process act: ${JSON.stringify(acted)}`);
      const extracted = await timed("local", "extract", () => client.extract("what the cart says"));
      if (!JSON.stringify(extracted).includes("Cart: black")) {
        failures.push(`in-process extract: ${JSON.stringify(extracted)}`);
      }
    } finally {
      await client.close();
    }
  }

  // A warm-up of each (JIT, the model layer, the first launch), not counted.
  await viaService();
  await other();
  times.service.clear();
  times.local.clear();
  overhead.clear();

  // Two rounds, the order swapped in the second: neither always runs on a warmer machine.
  const elapsed = { service: 0, local: 0 };
  // Per side, the most its Node process grew over a round and the most its browsers held.
  const grown = { service: { node: 0, browsers: 0 }, local: { node: 0, browsers: 0 } };
  const round = async (side: Side, one: () => Promise<void>) => {
    const before = memoryNow();
    peak = before;
    const t = performance.now();
    await Promise.all(Array.from({ length: SESSIONS }, one));
    elapsed[side] += performance.now() - t;
    peak = maxOf(peak, memoryNow());
    const node =
      side === "service" ? peak.serviceKb - before.serviceKb : peak.localKb - before.localKb;
    const browsers = side === "service" ? peak.serviceBrowsersKb : peak.localBrowsersKb;
    grown[side] = {
      node: Math.max(grown[side].node, node),
      browsers: Math.max(grown[side].browsers, browsers),
    };
  };
  await round("service", () => viaService());
  await round("local", other);
  await round("local", other);
  await round("service", () => viaService());
  clearInterval(sampler);

  const p = (xs: number[], q: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  };
  console.log(
    `${SESSIONS} concurrent sessions, navigate → act → extract, instant model over HTTP (the kit, shared), service in its own process, 2 rounds (order swapped)${process.env.BENCH_LOCAL_EGRESS ? "; in-process under the egress guard too" : ""}`,
  );
  /** What the other side is called in the figures. */
  const otherName = BEFORE ? `at ${BEFORE}` : "in-process";
  console.log(`op        service p50/p95     ${otherName.padEnd(10)} p50/p95   added p50/p95`);
  for (const op of ["navigate", "act", "extract"] as const) {
    const s = times.service.get(op)!;
    const l = times.local.get(op)!;
    const f = (x: number) => x.toFixed(0).padStart(5);
    console.log(
      `${op.padEnd(9)} ${f(median(s))} /${f(p(s, 0.95))} ms   ${f(median(l))} /${f(p(l, 0.95))} ms   ${f(median(s) - median(l))} /${f(p(s, 0.95) - p(l, 0.95))} ms`,
    );
  }
  console.log(
    "the service's own share (round trip minus the operation's server-timing: HTTP, JSON, auth, routing), p50/p95:",
  );
  for (const op of ["navigate", "act", "extract"] as const) {
    const o = overhead.get(op) ?? [];
    if (o.length)
      console.log(`  ${op.padEnd(9)} ${median(o).toFixed(1)} / ${p(o, 0.95).toFixed(1)} ms`);
  }
  const ops = SESSIONS * 3 * 2;
  console.log(
    `throughput: service ${((ops / elapsed.service) * 1000).toFixed(1)} ops/s (${(elapsed.service / 1000).toFixed(1)} s in all), ${otherName} ${((ops / elapsed.local) * 1000).toFixed(1)} ops/s (${(elapsed.local / 1000).toFixed(1)} s)`,
  );
  const mb = (kb: number) => (kb / SESSIONS / 1024).toFixed(1);
  console.log(
    `memory per session at the peak: service process +${mb(grown.service.node)} MB, its Chromium ${mb(grown.service.browsers)} MB; ${BEFORE ? `the service at ${BEFORE}` : "in-process: this process"} +${mb(grown.local.node)} MB, its Chromium ${mb(grown.local.browsers)} MB`,
  );
  console.log(
    `model requests answered by the kit: ${kit.requests().length}, unanswered: ${kit.unhandled().length}; failed runs: ${failures.length}`,
  );
  for (const failure of failures.slice(0, 5)) console.log(`  ${failure.slice(0, 300)}`);

  if (BEFORE) {
    console.log(
      `throughput now / ${otherName}: ${(elapsed.local / elapsed.service).toFixed(3)}×; p50 now / ${otherName}: ${(["navigate", "act", "extract"] as const).map((op) => `${op} ${(median(times.service.get(op)!) / median(times.local.get(op)!)).toFixed(3)}×`).join(", ")}`,
    );
  }
  beforeService?.child.kill("SIGTERM");
  if (beforeService) await beforeService.exited;
  service.child.kill("SIGTERM");
  const code = await service.exited;
  if (code !== 0) console.log(`the service exited with ${code}`);
  await rm(dataDir, { recursive: true, force: true });
  await pages.close();
}
