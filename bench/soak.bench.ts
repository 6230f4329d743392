/**
 * `npm run bench:soak`: the service as an operator runs it for days, in a few minutes. Rounds
 * of sessions, SOAK_CONCURRENCY at a time, through its own process (bin/wayfarer-service) and
 * the model kit over HTTP:
 *
 * - most rounds a v1 session: start → navigate → act → extract → observe → end;
 * - every fourth an MCP session on /mcp (the SDK's client): open → read → click by id → DELETE;
 * - every seventh a caller that gives up: its act's request is cut after 50 ms, then it ends;
 * - every eleventh a session never ended, left to the service's idle end.
 *
 * After each block of rounds it reads the service process: resident memory, V8 heap in use
 * (as /metrics reads it, and the lowest reading of each half of the run, since a single one
 * rides the collector's sawtooth), open file descriptors, live processes under it (browsers
 * and their helpers), live sessions. The baseline is the first block after a warm-up block, in
 * the same run: a leak shows as growth from it to the last block, not as a figure.
 * Then SIGTERM: the service must exit 0 and leave no process.
 *
 *   npm run bench:soak                 SOAK_ROUNDS=400 SOAK_CONCURRENCY=4 npm run bench:soak
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serveModelKit } from "../test/support/llm/modelHttp.js";
import { idOfLine } from "../test/support/llm/modelServer.js";
import { shopModel } from "../test/support/llm/shopModel.js";
import { liveDescendants } from "../test/support/processes.js";
import { startService } from "../test/support/serviceProcess.js";
import { median } from "./median.js";
import { startBenchServer } from "./snapshot/server.js";
import { postV1 } from "./v1Post.js";

const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 160);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 3);
const BLOCK = Number(process.env.SOAK_BLOCK ?? 20);
const IDLE_MS = 3_000;
const KEY = "soak-key-0123456789abcdef";
const HEADERS = { "x-wf-api-key": KEY, "x-model-api-key": "sk-soak" };

const kit = await serveModelKit(shopModel());
const pages = await startBenchServer();
const pageUrl = `${pages.origin}/fixtures/outline/shop.html`;
const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-soak-"));
const service = await startService({
  WAYFARER_DATA_DIR: dataDir,
  WAYFARER_API_KEYS: `soak:${KEY}`,
  WAYFARER_ALLOW_HOSTS: "127.0.0.1",
  WAYFARER_MAX_SESSIONS: String(CONCURRENCY + 4),
  WAYFARER_PROJECT_MAX_SESSIONS: String(CONCURRENCY + 4),
  WAYFARER_RATE_LIMIT: "1000000",
  WAYFARER_SESSION_IDLE_MS: String(IDLE_MS),
  WAYFARER_WATCH_INTERVAL_MS: "500",
  OPENAI_BASE_URL: kit.url,
});
const pid = service.child.pid!;
/** A v1 call that must succeed; its `data`. */
async function post(path: string, body: unknown): Promise<{ sessionId?: string }> {
  const answer = await postV1(service.url, HEADERS, path, body);
  if (answer.status !== 200)
    throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json.data as { sessionId?: string };
}

/** A v1 call whose caller gives up after `ms`: the request is cut, its answer never read. */
async function cut(path: string, body: unknown, ms: number): Promise<void> {
  await fetch(`${service.url}/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...HEADERS },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(ms),
  }).catch(() => undefined);
}

async function v1Round(kind: "whole" | "cut" | "left"): Promise<void> {
  const { sessionId } = await post("/sessions/start", { modelName: "openai/gpt-4.1-mini" });
  const at = `/sessions/${sessionId}`;
  await post(`${at}/navigate`, { url: pageUrl });
  if (kind === "cut") {
    await cut(`${at}/act`, { input: "add black tea to the cart" }, 50);
    await post(`${at}/end`, {});
    return;
  }
  await post(`${at}/act`, { input: "add black tea to the cart" });
  await post(`${at}/extract`, { instruction: "what the cart says" });
  await post(`${at}/observe`, { instruction: "the cart" });
  if (kind === "whole") await post(`${at}/end`, {});
}

async function mcpRound(): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${KEY}` } },
  });
  const client = new McpClient({ name: "soak", version: "1.0.0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    if (result.isError) throw new Error(`mcp ${name}: ${text}`);
    return text;
  };
  try {
    await call("open", { url: pageUrl });
    const outline = await call("read", { fresh: true });
    await call("click", { id: idOfLine(outline, 'button "Add to cart"') });
  } finally {
    await transport.terminateSession();
    await client.close();
  }
}

const round = (n: number) =>
  n % 4 === 3
    ? mcpRound()
    : n % 7 === 6
      ? v1Round("cut")
      : n % 11 === 10
        ? v1Round("left")
        : v1Round("whole");

/** The service process now: memory, heap after its GC, descriptors, processes, sessions. */
async function reading() {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rssMb = Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024;
  const metrics = await (await fetch(`${service.url}/metrics`)).text();
  const value = (name: string) =>
    Number(metrics.match(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, "m"))?.[1] ?? NaN);
  return {
    rssMb,
    heapMb: value("nodejs_heap_size_used_bytes") / 2 ** 20,
    fds: readdirSync(`/proc/${pid}/fd`).length,
    processes: liveDescendants(pid).length,
    sessions: value("wayfarer_sessions_live"),
  };
}

type Reading = Awaited<ReturnType<typeof reading>>;
const blocks: (Reading & { block: number; roundMs: number })[] = [];
let failures = 0;
let next = 0;
const t0 = performance.now();
for (let block = 0; next < ROUNDS; block++) {
  const end = Math.min(ROUNDS, next + BLOCK);
  const times: number[] = [];
  const worker = async () => {
    while (next < end) {
      const n = next++;
      const started = performance.now();
      await round(n).catch((error: unknown) => {
        failures++;
        console.log(`round ${n}: ${error instanceof Error ? error.message : String(error)}`);
      });
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  // Sessions left to the idle end are gone by the next reading, so each block reads alike.
  await new Promise((r) => setTimeout(r, IDLE_MS + 2_000));
  blocks.push({ block, roundMs: median(times), ...(await reading()) });
  const b = blocks.at(-1)!;
  console.log(
    `block ${block} (rounds to ${end}): round p50 ${b.roundMs.toFixed(0)} ms, rss ${b.rssMb.toFixed(0)} MB, heap ${b.heapMb.toFixed(1)} MB, fds ${b.fds}, processes ${b.processes}, sessions ${b.sessions}`,
  );
}

service.child.kill("SIGTERM");
const code = await service.exited;
const left = liveDescendants(pid).length;
await Promise.all([kit.close(), pages.close(), rm(dataDir, { recursive: true, force: true })]);

const base = blocks[Math.min(1, blocks.length - 1)]!;
const last = blocks.at(-1)!;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
console.log(
  `\n## Soak: ${ROUNDS} rounds, ${CONCURRENCY} at a time, ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
console.log(
  "| reading (between blocks, sessions idle) | block 1 (baseline) | last block | last / baseline |",
);
console.log("|---|---|---|---|");
for (const [name, key, unit] of [
  ["resident memory", "rssMb", "MB"],
  ["V8 heap in use", "heapMb", "MB"],
  ["open file descriptors", "fds", ""],
  ["processes under the service", "processes", ""],
  ["live sessions", "sessions", ""],
  ["round p50", "roundMs", "ms"],
] as const) {
  const a = base[key];
  const b = last[key];
  console.log(
    `| ${name} | ${a.toFixed(key === "heapMb" ? 1 : 0)} ${unit} | ${b.toFixed(key === "heapMb" ? 1 : 0)} ${unit} | ${a ? ratio(b, a) : "–"} |`,
  );
}
// V8 collects when it chooses, so one reading rides its sawtooth: the lowest of each half of the
// run is the heap a leak would lift.
const counted = blocks.slice(1);
const half = Math.ceil(counted.length / 2);
const lowest = (some: typeof blocks) => Math.min(...some.map((b) => b.heapMb));
const [early, late] = [lowest(counted.slice(0, half)), lowest(counted.slice(half))];
console.log(
  `| V8 heap, lowest reading of each half | ${early.toFixed(1)} MB | ${late.toFixed(1)} MB | ${ratio(late, early)} |`,
);
console.log(`\nfailed rounds: ${failures}; SIGTERM: exit ${code}, ${left} processes left`);
if (failures || code !== 0 || left) process.exitCode = 1;
