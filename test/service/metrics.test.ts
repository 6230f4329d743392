/**
 * The service's /metrics after a scripted workload, parsed by a Prometheus text-format parser,
 * each counter checked against what the workload did: sessions, operations by method and
 * outcome (a stream's failure too) with their latencies, model calls and tokens by project,
 * server-cache hits and misses, errors by code, refusals at each limit, CDP connections and
 * browser memory. The token: none or a wrong one is a 401. /readyz says the room left, and 503
 * with the reason when full. Request ids: taken, made, replaced when hostile, answered on every
 * answer (a refusal's, a stream's), in each log frame, and in the service's own log line.
 */
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LLMResponseError } from "../../lib/errors.js";
import { serviceConfig } from "../../lib/service/config.js";
import { connectCdp } from "../support/cdpClient.js";
import { failing, useModelServer } from "../support/llm/modelServer.js";
import { OPENAI_USAGE } from "../support/llm/openai.js";
import { shopModel } from "../support/llm/shopModel.js";
import { guideMetricNames, histogramOf, read, scrape } from "../support/prometheus.js";
import { framesOf, KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const TOKEN = "metrics-token-0123456789abcdef";
const MODEL_KEY = "sk-metrics-test-model-key-0123456789";
const RATE = 40;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const pages = useStaticServer();
const model = useModelServer(shopModel());
const warned: string[] = [];
// Three sessions at most, two of them a project's.
const service = useService({
  metricsToken: TOKEN,
  maxSessions: 3,
  limits: { ...serviceConfig({}).limits, projectSessions: 2 },
  ratePerMinute: RATE,
  watchIntervalMs: 100,
  warn: (line) => void warned.push(line),
});
/** The sessions the test under way started, with their project's key: each test ends its own. */
const started = new Map<string, string>();
afterEach(async () => {
  for (const [id, key] of started) await service.call("POST", `/v1/sessions/${id}/end`, { key });
  started.clear();
});

const metrics = () => scrape(service.url, TOKEN);

async function start(key = KEYS.alpha) {
  const answer = await service.call("POST", "/v1/sessions/start", {
    body: { modelName: "openai/gpt-4.1-mini" },
    headers: { "x-model-api-key": MODEL_KEY },
    key,
  });
  if (answer.status === 200) started.set(answer.body.data.sessionId, key);
  return answer;
}

const op = (id: string, method: string, body: unknown, headers: Record<string, string> = {}) =>
  service.call("POST", `/v1/sessions/${id}/${method}`, { body, headers });

describe("GET /metrics", () => {
  it("asks for the token: none or a wrong one is a 401, the right one gets the text", async () => {
    const none = await fetch(`${service.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await none.text()).toContain("WAYFARER_METRICS_TOKEN");
    const wrong = await fetch(`${service.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}x` },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain(TOKEN);
    // An API key is not the token.
    const key = await fetch(`${service.url}/metrics`, { headers: { "x-wf-api-key": KEYS.alpha } });
    expect(key.status).toBe(401);
    const right = await fetch(`${service.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(right.status).toBe(200);
    expect(right.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const scraped = read(await right.text());
    // The process's own metrics beside the service's.
    expect(scraped.value("process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(scraped.value("nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    expect(scraped.value("wayfarer_sessions_capacity")).toBe(3);
    expect(scraped.value("wayfarer_sessions_live")).toBe(0);
    // Embedded: no cluster gauges.
    expect(scraped.families.some((f) => f.name.startsWith("wayfarer_cluster_"))).toBe(false);
  });

  it("exports every metric the operations guide names, and the guide names every one", async () => {
    const scraped = await metrics();
    const exported = new Set(
      scraped.families.map((f) => f.name).filter((n) => n.startsWith("wayfarer_")),
    );
    const named = guideMetricNames();
    // The cluster's are shared mode's (test/cluster/metrics.test.ts).
    const here = [...named].filter((n) => !n.startsWith("wayfarer_cluster_"));
    expect(here.filter((n) => !exported.has(n))).toEqual([]);
    expect([...exported].filter((n) => !named.has(n))).toEqual([]);
  });

  it("counts what a scripted workload did; /readyz is 503 once full", async () => {
    const before = await metrics();
    const a = await start();
    const b = await start();
    expect([a.status, b.status]).toEqual([200, 200]);
    const [A, B] = [a.body.data.sessionId as string, b.body.data.sessionId as string];
    const ready = await service.call("GET", "/readyz", { key: null });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      ready: true,
      sessions: { live: 2, capacity: 3, room: 1 },
      // What this host gives a session's browser (test/service/failClosed.test.ts reads it).
      protections: expect.objectContaining({ cdp: "pipe" }),
    });
    const shop = { url: pages.url("outline/shop.html"), options: {} };
    expect((await op(A, "navigate", shop)).status).toBe(200);
    expect((await op(B, "navigate", shop)).status).toBe(200);
    // act and extract ask the model (two MISSes); the same extract again is a HIT.
    const acted = await op(A, "act", { input: "add black tea to the cart", options: {} });
    expect(acted.body).toMatchObject({ success: true, data: { result: { success: true } } });
    const ask = { instruction: "what the cart says", options: {} };
    expect((await op(A, "extract", ask)).headers.get("x-cache-status")).toBe("MISS");
    expect((await op(A, "extract", ask)).headers.get("x-cache-status")).toBe("HIT");
    // A caller's errors: a body of the wrong shape (400), a session that is not there (404).
    expect((await op(A, "act", { input: 42 })).status).toBe(400);
    expect((await op("no-such-session", "extract", ask)).status).toBe(404);
    // A stream that fails: 200 on the wire, a caller's error in its last frame.
    const refused = await op(
      B,
      "navigate",
      { url: "http://10.255.255.1/", options: {} },
      { "x-stream-response": "true" },
    );
    expect(refused.status).toBe(200);
    expect(framesOf(refused.text).at(-1).data).toMatchObject({ status: "error" });
    // The provider refuses the key: a 502, which the service's log tells, under its request id.
    model.use(
      failing("https://api.openai.com/v1/responses", 401, { error: { message: "bad key" } }),
    );
    const failed = await op(B, "act", { input: "add green tea to the cart", options: {} });
    expect(failed.status).toBe(502);
    // The project's third session is refused (its quota), then the service's fourth (full).
    expect((await start()).status).toBe(429);
    expect((await start(KEYS.beta)).status).toBe(200);
    const full = await start(KEYS.beta);
    expect(full.status).toBe(503);
    const readyz = await service.call("GET", "/readyz", { key: null });
    expect(readyz.status).toBe(503);
    expect(readyz.body).toMatchObject({
      ready: false,
      reason: "full",
      sessions: { live: 3, capacity: 3, room: 0 },
    });
    expect(readyz.body.message).toContain("WAYFARER_MAX_SESSIONS");
    // A CDP connection through the proxy is open while it lasts.
    const cdp = await connectCdp(a.body.data.cdpUrl);

    const after = await metrics();
    const grew = (name: string, labels?: Record<string, string>) =>
      after.total(name, labels) - before.total(name, labels);
    expect(grew("wayfarer_sessions_started_total")).toBe(3);
    expect(after.value("wayfarer_sessions_live")).toBe(3);
    expect(after.value("wayfarer_sessions_room")).toBe(0);
    expect(after.value("wayfarer_cdp_connections")).toBe(1);
    const ops = (method: string, outcome: string) =>
      grew("wayfarer_operations_total", { method, outcome });
    expect(ops("start", "ok")).toBe(3);
    expect(ops("start", "caller_error")).toBe(1);
    expect(ops("start", "failed")).toBe(1);
    expect(ops("navigate", "ok")).toBe(2);
    expect(ops("navigate", "caller_error")).toBe(1);
    expect(ops("act", "ok")).toBe(1);
    expect(ops("act", "caller_error")).toBe(1);
    expect(ops("act", "failed")).toBe(1);
    expect(ops("extract", "ok")).toBe(2);
    expect(ops("extract", "caller_error")).toBe(1);
    expect(grew("wayfarer_operations_total", { outcome: "timeout" })).toBe(0);
    // Errors by code, each where it happened.
    const errors = (method: string, code: string) =>
      grew("wayfarer_errors_total", { method, code });
    expect(errors("act", "VALIDATION_FAILED")).toBe(1);
    expect(errors("extract", "SESSION_NOT_FOUND")).toBe(1);
    expect(errors("navigate", "NAVIGATION_REFUSED")).toBe(1);
    expect(errors("act", LLMResponseError.code)).toBe(1);
    expect(errors("start", "QUOTA_EXCEEDED")).toBe(1);
    expect(errors("start", "SERVICE_FULL")).toBe(1);
    // Two model calls answered, each with the kit's usage, under the project that asked.
    expect(grew("wayfarer_model_calls_total", { project: "alpha" })).toBe(2);
    expect(grew("wayfarer_model_tokens_total", { project: "alpha", direction: "input" })).toBe(
      2 * OPENAI_USAGE.input,
    );
    expect(grew("wayfarer_model_tokens_total", { project: "alpha", direction: "output" })).toBe(
      2 * OPENAI_USAGE.output,
    );
    expect(grew("wayfarer_model_calls_total", { project: "beta" })).toBe(0);
    // act's MISS, extract's MISS then HIT; the failed act looked too, and missed.
    expect(grew("wayfarer_server_cache_lookups_total", { result: "hit" })).toBe(1);
    expect(grew("wayfarer_server_cache_lookups_total", { result: "miss" })).toBe(3);
    const refusals = (project: string, limit: string) =>
      grew("wayfarer_refusals_total", { project, limit });
    expect(refusals("alpha", "WAYFARER_PROJECT_MAX_SESSIONS")).toBe(1);
    expect(refusals("beta", "WAYFARER_MAX_SESSIONS")).toBe(1);
    // The latencies: one act that succeeded, its time within the buckets.
    const acts = await histogramOf(
      service.service.metrics.registry,
      "wayfarer_operation_duration_seconds",
      { method: "act", outcome: "ok" },
    );
    expect(acts?.count).toBe(1);
    expect(acts?.sum).toBeGreaterThan(0);
    expect(acts?.buckets.get(Infinity)).toBe(1);
    expect([...(acts?.buckets.keys() ?? [])]).toEqual([
      0.05,
      0.1,
      0.25,
      0.5,
      1,
      2.5,
      5,
      10,
      20,
      30,
      60,
      Infinity,
    ]);
    // The service's log: the 502 alone (a caller's error and a full service write nothing).
    const lines = warned.filter((l) => l.startsWith("error:"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: POST \/v1\/sessions\/:id\/act answered 502 \(/);
    expect(lines[0]).toContain(`for session ${B}`);
    expect(lines[0]).toMatch(new RegExp(`\\[request ${failed.headers.get("x-request-id")}\\]$`));
    for (const line of warned) {
      expect(line).not.toContain(MODEL_KEY);
      expect(line).not.toContain(KEYS.alpha);
    }
    // The watchdog reads every browser's memory (every 100 ms here).
    await expect
      .poll(async () => (await metrics()).value("wayfarer_browser_memory_bytes"), {
        timeout: 10_000,
      })
      .toBeGreaterThan(0);
    const memory = await metrics();
    expect(memory.value("wayfarer_browser_memory_max_bytes")).toBeGreaterThan(0);
    expect(memory.value("wayfarer_browser_memory_max_bytes")).toBeLessThanOrEqual(
      memory.value("wayfarer_browser_memory_bytes") ?? 0,
    );
    expect(memory.value("wayfarer_browser_memory_limit_bytes")).toBe(2048 * 2 ** 20);

    cdp.close();
    await expect.poll(async () => (await metrics()).value("wayfarer_cdp_connections")).toBe(0);
    // No label names a session, a URL or anything typed.
    for (const id of started.keys()) expect(after.text).not.toContain(id);
    expect(after.text).not.toContain("shop.html");
    expect(after.text).not.toContain("black tea");
    expect(after.text).not.toContain(MODEL_KEY);
  });
});

describe("request ids", () => {
  const idOf = (answer: { headers: Headers }) => answer.headers.get("x-request-id");

  it("takes a plain one, makes one when absent, and replaces a hostile one", async () => {
    const given = "trace-4bf92f3577b34da6a3ce929d0e0e4736";
    const taken = await service.call("GET", "/healthz", { headers: { "x-request-id": given } });
    expect(idOf(taken)).toBe(given);
    expect(idOf(await service.call("GET", "/healthz"))).toMatch(UUID);
    for (const hostile of ["x".repeat(129), "two words", "a%0d%0ab", "<script>"]) {
      const answer = await service.call("GET", "/healthz", {
        headers: { "x-request-id": hostile },
      });
      expect(idOf(answer), hostile).toMatch(UUID);
    }
    // Each answer its own id.
    const [one, two] = await Promise.all([
      service.call("GET", "/healthz"),
      service.call("GET", "/healthz"),
    ]);
    expect(idOf(one)).not.toBe(idOf(two));
  });

  it("lets no line break or byte past ASCII through", async () => {
    const head = (id: string) =>
      rawRequest(
        `GET /healthz HTTP/1.1\r\nhost: x\r\nx-request-id: ${id}\r\nconnection: close\r\n\r\n`,
      );
    // A bare CR in a value: the HTTP parser refuses the request before any route.
    const split = await head("abc\rset-cookie: x=1");
    expect(split).toMatch(/^HTTP\/1\.1 400/);
    expect(split.toLowerCase()).not.toContain("set-cookie");
    // Bytes past ASCII, and two ids (a header sent twice, joined with ", "): replaced.
    for (const answer of [await head("caf\u00e9"), await head("one\r\nx-request-id: two")]) {
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(answer).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    }
  });

  it("is answered on a refusal, with no route, and on a stream and each of its log frames", async () => {
    const refused = await service.call("POST", "/v1/sessions/start", {
      key: null,
      headers: { "x-request-id": "refused-1" },
    });
    expect(refused.status).toBe(401);
    expect(idOf(refused)).toBe("refused-1");
    expect(idOf(await service.call("GET", "/no/such/route"))).toMatch(UUID);
    const session = await start();
    const id = session.body.data.sessionId as string;
    await op(id, "navigate", { url: pages.url("outline/shop.html"), options: {} });
    const streamed = await op(
      id,
      "extract",
      // Words of its own: a MISS, so a model call, so a log frame of its usage at least.
      { instruction: "what the cart says, streamed", options: {} },
      { "x-stream-response": "true", "x-request-id": "stream-1" },
    );
    expect(idOf(streamed)).toBe("stream-1");
    const frames = framesOf(streamed.text);
    expect(frames.at(-1).data).toMatchObject({ status: "finished" });
    const logs = frames.filter((f) => f.type === "log");
    expect(logs.length).toBeGreaterThan(0);
    for (const frame of logs) expect(frame.data.requestId).toBe("stream-1");
  });
});

// Last: the project it hammers stays refused for the rest of the minute.
describe("the rate limit", () => {
  it("counts a refusal by project", async () => {
    const before = await metrics();
    let asked = 0;
    let refused = 0;
    // Fixed one-minute windows: a window that turns mid-way takes a few more calls.
    while (refused === 0 && asked < 2 * RATE + 2) {
      const answer = await service.call("GET", "/v1/sessions/no-such-session", { key: KEYS.beta });
      asked++;
      if (answer.status === 429) refused++;
    }
    expect(refused).toBe(1);
    const after = await metrics();
    const grew = (name: string, labels: Record<string, string>) =>
      after.total(name, labels) - before.total(name, labels);
    expect(grew("wayfarer_refusals_total", { project: "beta", limit: "WAYFARER_RATE_LIMIT" })).toBe(
      1,
    );
    expect(grew("wayfarer_refusals_total", { project: "alpha" })).toBe(0);
    const errors = (code: string) => grew("wayfarer_errors_total", { method: "session", code });
    expect(errors("HTTP_429")).toBe(1);
    expect(errors("SESSION_NOT_FOUND")).toBe(asked - 1);
    expect(grew("wayfarer_operations_total", { method: "session", outcome: "caller_error" })).toBe(
      asked,
    );
  });
});

/** One request as written, the answer as the server wrote it. */
function rawRequest(text: string): Promise<string> {
  const { port, hostname } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(Buffer.from(text, "latin1")));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}
