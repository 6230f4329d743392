/**
 * The HTTP service under load on this machine: SESSIONS concurrent sessions, each navigate →
 * act → extract with an instantly answering model (msw, in this process, as the service is), next
 * to the same SESSIONS concurrent runs done in-process with the library in the same run. Per
 * operation: p50 and p95 latency over HTTP and in-process, and what the service adds; the
 * throughput of each; memory per session (the service process and the session's Chromium).
 * Goal (issue 17): p95 added under 50 ms.
 *
 *   npm run bench:service        BENCH_SESSIONS=10 npm run bench:service
 */
import { readFileSync } from "node:fs";
import { setupServer } from "msw/node";
import { Client } from "../lib/index.js";
import { serviceConfig } from "../lib/service/config.js";
import { loadKeys } from "../lib/service/keys.js";
import { buildService } from "../lib/service/server.js";
import { idOfLine, instructionOf, promptOf } from "../test/support/llm/modelServer.js";
import { openaiResponses } from "../test/support/llm/openai.js";
import { liveDescendants } from "../test/support/processes.js";
import { median } from "./median.js";
import { startBenchServer } from "./snapshot/server.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 20);
const KEY = "bench-key-0123456789abcdef";
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench-service" };

const model = setupServer(
  openaiResponses((request) => {
    const prompt = promptOf(request);
    if (instructionOf(request).includes("cart says")) {
      return { extraction: prompt.match(/Cart: \w+/)?.[0] ?? "Cart: empty" };
    }
    const lines = prompt.split("\n");
    const from = lines.findIndex((l) => l.includes('link "Black tea"'));
    const id = idOfLine(lines.slice(from).join("\n"), 'button "Add to cart"');
    return { elements: [{ elementId: id, description: "add", method: "click", arguments: [] }] };
  }),
);
model.listen({ onUnhandledRequest: "bypass" });

const pages = await startBenchServer();
const pageUrl = `${pages.origin}/fixtures/outline/shop.html`;
const config = {
  ...serviceConfig({ PORT: "0", WAYFARER_ALLOW_HOSTS: "127.0.0.1" }),
  maxSessions: SESSIONS,
  ratePerMinute: 1_000_000,
  // Every run asks the model, as the in-process runs do.
  serverCache: false,
};
const service = buildService(config, await loadKeys(`bench:${KEY}`, config.dataDir, () => {}));
const base = await service.app.listen({ host: "127.0.0.1", port: 0 });

type Op = "navigate" | "act" | "extract";
const times = { service: new Map<Op, number[]>(), local: new Map<Op, number[]>() };
const note = (where: "service" | "local", op: Op, ms: number) =>
  times[where].set(op, [...(times[where].get(op) ?? []), ms]);

async function post(path: string, body: unknown): Promise<{ success: boolean; data?: unknown }> {
  const response = await fetch(`${base}/v1${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-wf-api-key": KEY,
      "x-model-api-key": MODEL.apiKey,
    },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { success: boolean; data?: unknown };
}

async function timed<T>(where: "service" | "local", op: Op, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const result = await work();
  note(where, op, performance.now() - t0);
  return result;
}

let peakRss = 0;
let peakBrowsersKb = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  const kb = liveDescendants(process.pid)
    .map((pid) => {
      try {
        return Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * 4;
      } catch {
        return 0;
      }
    })
    .reduce((a, b) => a + b, 0);
  peakBrowsersKb = Math.max(peakBrowsersKb, kb);
}, 200);

async function viaService(): Promise<void> {
  const started = await post("/sessions/start", { modelName: MODEL.modelName });
  const { sessionId } = started.data as { sessionId: string };
  try {
    await timed("service", "navigate", () =>
      post(`/sessions/${sessionId}/navigate`, { url: pageUrl, options: {} }),
    );
    await timed("service", "act", () =>
      post(`/sessions/${sessionId}/act`, { input: "add black tea to the cart", options: {} }),
    );
    await timed("service", "extract", () =>
      post(`/sessions/${sessionId}/extract`, { instruction: "what the cart says", options: {} }),
    );
  } finally {
    await post(`/sessions/${sessionId}/end`, {});
  }
}

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
    await timed("local", "act", () => client.act("add black tea to the cart"));
    await timed("local", "extract", () => client.extract("what the cart says"));
  } finally {
    await client.close();
  }
}

// A warm-up of each (JIT, the model layer, the first launch), not counted.
await viaService();
await inProcess();
times.service.clear();
times.local.clear();

// Two rounds, the order swapped in the second: neither always runs on a warmer machine.
let serviceMs = 0;
let localMs = 0;
let serviceRss = 0;
let serviceBrowsersKb = 0;
const runService = async () => {
  const rssBefore = process.memoryUsage.rss();
  peakRss = rssBefore;
  peakBrowsersKb = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: SESSIONS }, viaService));
  serviceMs += performance.now() - t;
  serviceRss = Math.max(serviceRss, peakRss - rssBefore);
  serviceBrowsersKb = Math.max(serviceBrowsersKb, peakBrowsersKb);
};
const runLocal = async () => {
  const t = performance.now();
  await Promise.all(Array.from({ length: SESSIONS }, inProcess));
  localMs += performance.now() - t;
};
await runService();
await runLocal();
await runLocal();
await runService();
clearInterval(sampler);

const p = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
console.log(
  `${SESSIONS} concurrent sessions, navigate → act → extract, instant model, 2 rounds (order swapped)${process.env.BENCH_LOCAL_EGRESS ? "; in-process under the egress guard too" : ""}`,
);
console.log("op        service p50/p95     in-process p50/p95   added p50/p95");
for (const op of ["navigate", "act", "extract"] as const) {
  const s = times.service.get(op)!;
  const l = times.local.get(op)!;
  const f = (x: number) => x.toFixed(0).padStart(5);
  console.log(
    `${op.padEnd(9)} ${f(median(s))} /${f(p(s, 0.95))} ms   ${f(median(l))} /${f(p(l, 0.95))} ms   ${f(median(s) - median(l))} /${f(p(s, 0.95) - p(l, 0.95))} ms`,
  );
}
const ops = SESSIONS * 3 * 2;
console.log(
  `throughput: service ${((ops / serviceMs) * 1000).toFixed(1)} ops/s (${(serviceMs / 1000).toFixed(1)} s in all), in-process ${((ops / localMs) * 1000).toFixed(1)} ops/s (${(localMs / 1000).toFixed(1)} s)`,
);
console.log(
  `memory per session at the peak: service process +${(serviceRss / SESSIONS / 1024 / 1024).toFixed(1)} MB, its Chromium ${(serviceBrowsersKb / SESSIONS / 1024).toFixed(0)} MB`,
);

await service.close();
await pages.close();
model.close();
