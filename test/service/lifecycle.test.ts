/**
 * The service as `npm run service` runs it, in a process of its own: it says where it listens,
 * makes a key when none is given (shown once, only its hash kept), runs a whole act against the
 * model kit over HTTP, and on SIGTERM, with sessions open and an act waiting on a model that
 * never answers, ends every browser, answers the act, drops its model call and exits in time;
 * killed outright, its lifeline ends its browsers.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { shopModel } from "../support/llm/shopModel.js";
import {
  commandLineIfLive,
  isEgressWorker,
  liveDescendants,
  stillLive,
  stillRunning,
} from "../support/processes.js";
import { type ServiceProcess, startService } from "../support/serviceProcess.js";
import { useStaticServer } from "../support/staticServer.js";
import { gate, within } from "../support/waiting.js";

const pages = useStaticServer();
const KEY = "key-lifecycle-0123456789abcdef";
const MODEL_KEY = "sk-lifecycle-model-123456";

let dataDir = "";
let service: ServiceProcess | undefined;
let kit: ModelKitServer | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wayfarer-service-"));
});
afterEach(async () => {
  // A test that failed half-way leaves no service (nor its browsers) to the next one.
  if (service && service.child.exitCode === null && service.child.signalCode === null) {
    service.child.kill("SIGKILL");
    await service.exited;
  }
  service = undefined;
  await kit?.close();
  kit = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

/** The service with a project key, its model at the kit, and the fixture server allowed. */
function serviceAtKit(models: ModelKitServer): Promise<ServiceProcess> {
  return startService({
    WAYFARER_DATA_DIR: dataDir,
    WAYFARER_API_KEYS: `test:${KEY}`,
    WAYFARER_ALLOW_HOSTS: "127.0.0.1,localhost",
    OPENAI_BASE_URL: models.url,
  });
}

/** A JSON request with the project's and the model's keys. */
function post(base: string, path: string, body: unknown = {}): Promise<Response> {
  return fetch(`${base}/v1${path}`, {
    method: "POST",
    headers: {
      "x-wf-api-key": KEY,
      "x-model-api-key": MODEL_KEY,
      "content-type": "application/json",
    },
    body: JSON.stringify(body),
  });
}

/** The v1 answer's shape, as far as these tests read it. */
interface Answer {
  success: boolean;
  message?: string;
  data?: { sessionId?: string; result?: unknown };
}

/** post(), its answer's JSON body read. */
async function call(base: string, path: string, body: unknown = {}) {
  const response = await post(base, path, body);
  return { status: response.status, body: (await response.json()) as Answer };
}

/** A session of the service's project, its page at `page`. */
async function sessionOn(base: string, page: string): Promise<string> {
  const started = await call(base, "/sessions/start", { modelName: "openai/gpt-4.1-mini" });
  expect(started.body).toMatchObject({ success: true });
  const id = started.body.data!.sessionId!;
  const navigated = await call(base, `/sessions/${id}/navigate`, { url: page, options: {} });
  expect(navigated.body).toMatchObject({ success: true });
  return id;
}

/** The browsers under the service: each in a process group of its own (its lifeline shell aside). */
const browsersOf = (running: ServiceProcess) =>
  liveDescendants(running.child.pid!).filter(
    (pid) =>
      pid !== running.child.pid && commandLineIfLive(pid)[0] !== "sh" && !isEgressWorker(pid),
  );

describe("npm run service", () => {
  it("makes a key once, and on SIGTERM ends every session's browser and exits within 20 s", async () => {
    service = await startService({ WAYFARER_DATA_DIR: dataDir, WAYFARER_API_KEYS: "" });
    const running = service;
    const key = running.printed().match(/: (wf_[\w-]+)\n/)?.[1];
    expect(key).toBeDefined();
    const stored = JSON.parse(await readFile(join(dataDir, "keys.json"), "utf8"));
    expect(Object.keys(stored)).toEqual(["default"]);
    expect(JSON.stringify(stored)).not.toContain(key!);
    const start = () =>
      fetch(`${running.url}/v1/sessions/start`, {
        method: "POST",
        headers: { "x-wf-api-key": key!, "content-type": "application/json" },
        body: "{}",
      }).then((r) => r.json() as Promise<{ success: boolean }>);
    expect((await start()).success).toBe(true);
    expect((await start()).success).toBe(true);
    const browsers = browsersOf(running);
    expect(browsers.length).toBeGreaterThan(1);
    const stopped = Date.now();
    running.child.kill("SIGTERM");
    expect(await within(25_000, "the service's exit", running.exited)).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(20_000);
    expect(await stillRunning(browsers)).toEqual([]);
  });

  it("runs act and extract with its model at the kit over HTTP (OPENAI_BASE_URL)", async () => {
    kit = await serveModelKit(shopModel());
    service = await serviceAtKit(kit);
    const running = service;
    const id = await sessionOn(running.url, pages.url("outline/shop.html"));
    const acted = await call(running.url, `/sessions/${id}/act`, {
      input: "add black tea to the cart",
      options: {},
    });
    expect(acted.body).toMatchObject({ success: true, data: { result: { success: true } } });
    const extracted = await call(running.url, `/sessions/${id}/extract`, {
      instruction: "what the cart says",
      options: {},
    });
    // The click happened in the service's browser: the cart line changed.
    expect(extracted.body.data?.result).toEqual({ extraction: "Cart: black" });
    // Both answers came from the kit, asked with the session's model key.
    const asked = kit.requestsTo("/v1/responses");
    expect(asked.map((r) => r.headers.get("authorization"))).toEqual([
      `Bearer ${MODEL_KEY}`,
      `Bearer ${MODEL_KEY}`,
    ]);
    expect(kit.unhandled()).toEqual([]);
    expect((await call(running.url, `/sessions/${id}/end`)).body).toEqual({
      success: true,
      data: {},
    });
    running.child.kill("SIGTERM");
    expect(await within(25_000, "the service's exit", running.exited)).toBe(0);
  });

  it("on SIGTERM during an act waiting on a model that never answers: the act answered, its model call dropped, the browser ended, exit 0 within 20 s", async () => {
    const atModel = gate();
    const dropped = gate();
    kit = await serveModelKit();
    kit.use(
      http.post("https://api.openai.com/v1/responses", async ({ request }) => {
        atModel.open();
        // A model that never answers: only the service's giving up on the call ends this.
        await new Promise((resolve) =>
          request.signal.addEventListener("abort", resolve, { once: true }),
        );
        dropped.open();
        return HttpResponse.error();
      }),
    );
    service = await serviceAtKit(kit);
    const running = service;
    const id = await sessionOn(running.url, pages.url("outline/shop.html"));
    // By fetch, which keeps its connection alive as the v3 client's does: the shutdown must not
    // wait for it.
    const acting = post(running.url, `/sessions/${id}/act`, {
      input: "add black tea to the cart",
      options: {},
    }).then(
      async (r) => ({ status: r.status, text: await r.text() }),
      (error: unknown) => ({ status: 0, text: String(error) }),
    );
    await within(20_000, "the act's model request at the kit", atModel.opened);
    const browsers = browsersOf(running);
    expect(browsers.length).toBeGreaterThan(0);

    const stopped = Date.now();
    running.child.kill("SIGTERM");
    // An answer or a closed connection, never a hang; and never a success. act reports an
    // action that failed in its result (as v3 does), a call that failed at the top.
    const answer = await within(20_000, "the in-flight act's answer", acting);
    if (answer.status !== 0) {
      const body = JSON.parse(answer.text) as Answer;
      const result = body.data?.result as { success?: boolean; message?: string } | undefined;
      expect(body.success ? result : body).toMatchObject({
        success: false,
        message: expect.any(String),
      });
    }
    await within(20_000, "the service dropping its model call", dropped.opened);
    expect(await within(25_000, "the service's exit", running.exited)).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(20_000);
    expect(await stillRunning(browsers)).toEqual([]);
    expect(running.printed()).toContain("SIGTERM: ending every session");
  });

  it("on SIGTERM while a session starts: the start answered 503 (shutting down), no browser left, exit 0 well within 20 s", async () => {
    service = await startService({ WAYFARER_DATA_DIR: dataDir, WAYFARER_API_KEYS: `test:${KEY}` });
    const running = service;
    // By fetch, whose kept-alive connection must not hold the exit.
    const starting = call(running.url, "/sessions/start", {});
    // The browser's launch under way (its processes appear under the service).
    const launching = Date.now();
    while (browsersOf(running).length === 0 && Date.now() - launching < 10_000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    running.child.kill("SIGTERM");
    const answer = await within(20_000, "the start's answer", starting);
    expect(answer.status).toBe(503);
    expect(answer.body.message).toContain("shutting down");
    // 0, not the 20 s backstop's 1: nothing held the exit.
    expect(await within(25_000, "the service's exit", running.exited)).toBe(0);
    expect(liveDescendants(running.child.pid!)).toEqual([]);
  });

  it("killed outright (SIGKILL), no exit hook runs: its lifeline ends every browser and removes their folders", async () => {
    service = await startService({ WAYFARER_DATA_DIR: dataDir, WAYFARER_API_KEYS: `test:${KEY}` });
    const running = service;
    expect((await call(running.url, "/sessions/start", {})).body.success).toBe(true);
    const browsers = browsersOf(running);
    const folders = [
      ...new Set(
        browsers
          .flatMap((pid) => commandLineIfLive(pid))
          .map((arg) => arg.match(/^--user-data-dir=(.+)\/profile$/)?.[1])
          .filter((dir): dir is string => dir !== undefined),
      ),
    ];
    expect(browsers.length).toBeGreaterThan(1);
    expect(folders).toHaveLength(1);
    running.child.kill("SIGKILL");
    await running.exited;
    expect(await stillLive(browsers, 5_000)).toEqual([]);
    await within(
      5_000,
      "the launch folder's removal",
      (async () => {
        while (existsSync(folders[0]!)) await new Promise((r) => setTimeout(r, 100));
      })(),
    );
  });
});
