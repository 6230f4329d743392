/**
 * bin/wayfarer-service started as the Python SDK's local mode starts its server binary
 * (STAGEHAND_SEA_BINARY): no arguments, a new session and process group, the parent's
 * environment plus HOST, PORT, HEADLESS, MODEL_API_KEY, NODE_ENV=production and BB_ENV=local, then
 * polled on /readyz, /healthz and /health every 100 ms and called with x-bb-api-key. The service is
 * this very process (no wrapper): SIGTERM to its group (the SDK's close) or to its pid alone
 * (systemd) ends every browser and exits 0.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chromiumPack } from "../../lib/browser/chromiumPack.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { shopModel } from "../support/llm/shopModel.js";
import { freePort } from "../support/ports.js";
import {
  commandLine,
  commandLineIfLive,
  liveDescendants,
  liveGroupMembers,
  stillRunning,
} from "../support/processes.js";
import { useStaticServer } from "../support/staticServer.js";
import { within } from "../support/waiting.js";

const ENTRY = join(import.meta.dirname, "..", "..", "bin", "wayfarer-service");
const KEY = "any value in local mode";
const CALLER_MODEL_KEY = "sk-caller-model-0123456789";
const ENV_MODEL_KEY = "sk-environment-model-0123456789";

const pages = useStaticServer();

/** The v1 answer, as far as these tests read it. */
interface Answer {
  success: boolean;
  message?: string;
  data?: { sessionId?: string; result?: unknown };
}

interface Entry {
  child: ChildProcessByStdio<null, Readable, Readable>;
  base: string;
  printed(): string;
  exited: Promise<number | null>;
}

let folder = "";
let entry: Entry | undefined;
let kit: ModelKitServer | undefined;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "wayfarer-entry-"));
  // The Python user's project: the service's cwd, which it must leave as it was.
  mkdirSync(join(folder, "project"));
});
afterEach(async () => {
  if (entry && entry.child.exitCode === null && entry.child.signalCode === null) {
    process.kill(-entry.child.pid!, "SIGKILL");
    await entry.exited;
  }
  entry = undefined;
  await kit?.close();
  kit = undefined;
  rmSync(folder, { recursive: true, force: true });
});

/** The parent's environment without the settings a test's own run may carry. */
function parentEnv(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  for (const name of ["WAYFARER_API_KEYS", "WAYFARER_DATA_DIR", "OPENAI_API_KEY", "BB_ENV"]) {
    delete env[name];
  }
  return env;
}

/** As sea_server.py's _start_sync: [binary] alone, setsid, its environment over the parent's. */
async function startAsPython(extra: Record<string, string> = {}): Promise<Entry> {
  const port = await freePort();
  const child = spawn(ENTRY, [], {
    cwd: join(folder, "project"),
    detached: true,
    env: {
      ...parentEnv(),
      NODE_ENV: "production",
      BB_ENV: "local",
      HOST: "127.0.0.1",
      PORT: String(port),
      HEADLESS: "true",
      MODEL_API_KEY: ENV_MODEL_KEY,
      BROWSERBASE_API_KEY: KEY,
      WAYFARER_ALLOW_HOSTS: "127.0.0.1",
      XDG_CACHE_HOME: join(folder, "cache"),
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  // Read to the end: a full pipe would stall the service's writes.
  child.stdout.on("data", (d: Buffer) => {
    printed += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    printed += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, base: `http://127.0.0.1:${port}`, printed: () => printed, exited };
}

/** As _wait_ready_sync: the first 200 of /readyz, /healthz, /health, tried every 100 ms. */
async function waitReady(running: Entry): Promise<string> {
  let gone = false;
  void running.exited.then(() => {
    gone = true;
  });
  while (!gone) {
    for (const path of ["/readyz", "/healthz", "/health"]) {
      const status = await fetch(`${running.base}${path}`, { signal: AbortSignal.timeout(1_000) })
        .then((r) => r.status)
        .catch(() => 0);
      if (status === 200) return path;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the entry exited before it was ready: ${running.printed()}`);
}

/** A v1 call as the SDK makes it: x-bb-api-key, and the caller's model key. */
async function call(running: Entry, path: string, body: unknown = {}, key: string | null = KEY) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-model-api-key": CALLER_MODEL_KEY,
    "x-language": "python",
  };
  if (key !== null) headers["x-bb-api-key"] = key;
  const response = await fetch(`${running.base}/v1${path}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

async function openSession(running: Entry): Promise<string> {
  const started = await call(running, "/sessions/start", { modelName: "openai/gpt-4.1-mini" });
  expect(started).toMatchObject({ status: 200, body: { success: true } });
  return started.body.data!.sessionId!;
}

/** The browsers under the entry: each leads a process group of its own (the lifeline's sh aside). */
const browsersOf = (running: Entry) =>
  liveDescendants(running.child.pid!).filter(
    (pid) => pid !== running.child.pid && commandLineIfLive(pid)[0] !== "sh",
  );

describe("bin/wayfarer-service as the Python SDK's local mode starts it", () => {
  it("is ready on /readyz, takes BROWSERBASE_API_KEY as x-bb-api-key, drives a page, and on SIGTERM to its group ends every browser and exits 0", async () => {
    kit = await serveModelKit(shopModel());
    entry = await startAsPython({ OPENAI_BASE_URL: kit.url });
    const running = entry;
    expect(await within(60_000, "the entry's readiness", waitReady(running))).toBe("/readyz");
    for (const path of ["/healthz", "/health"]) {
      expect((await fetch(`${running.base}${path}`)).status).toBe(200);
    }
    // The service is the process the SDK started: node running the entry, no npm, sh or tsx CLI.
    expect(commandLine(running.child.pid!)).toEqual([expect.stringMatching(/node$/), ENTRY]);
    expect(running.printed()).toContain('BROWSERBASE_API_KEY is the API key of project "local"');
    expect(running.printed()).not.toContain(KEY);

    for (const key of ["another value", null]) {
      const refused = await call(running, "/sessions/start", {}, key);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({
        success: false,
        message: expect.stringContaining("x-bb-api-key"),
      });
    }

    const id = await openSession(running);
    const navigated = await call(running, `/sessions/${id}/navigate`, {
      url: pages.url("outline/shop.html"),
      frameId: null,
    });
    expect(navigated.body).toMatchObject({ success: true });
    const acted = await call(running, `/sessions/${id}/act`, {
      input: "add black tea to the cart",
    });
    expect(acted.body).toMatchObject({ success: true, data: { result: { success: true } } });
    const extracted = await call(running, `/sessions/${id}/extract`, {
      instruction: "what the cart says",
    });
    expect(extracted.body.data?.result).toEqual({ extraction: "Cart: black" });
    // MODEL_API_KEY of the environment is no operator key: every model call carried the caller's.
    const asked = kit.requests().map((r) => r.headers.get("authorization"));
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set([`Bearer ${CALLER_MODEL_KEY}`]));
    expect((await call(running, `/sessions/${id}/end`)).body).toEqual({ success: true, data: {} });

    // A session open when the SDK closes its client.
    await openSession(running);
    const browsers = browsersOf(running);
    expect(browsers.length).toBeGreaterThan(0);
    process.kill(-running.child.pid!, "SIGTERM");
    expect(await within(20_000, "the entry's exit", running.exited)).toBe(0);
    expect(await stillRunning(browsers)).toEqual([]);
    expect(liveGroupMembers(running.child.pid!)).toEqual([]);
    expect(running.printed()).toContain("SIGTERM: ending every session");
    // Nothing written into the Python project's folder; the data folder is the user's cache.
    expect(readdirSync(join(folder, "project"))).toEqual([]);
    expect(readdirSync(join(folder, "cache"))).toEqual(["wayfarer"]);
  });

  it("starts its browsers from CHROME_PATH, and on SIGTERM to its pid alone (systemd's default) ends every browser and exits 0", async () => {
    // The same Chromium by a path of the test's own, which the browser's command line then shows;
    // readable by the session's own uid, as the SDK's local_chrome_path would be.
    const bin = join(folder, "bin");
    mkdirSync(bin);
    chmodSync(folder, 0o755);
    const chrome = join(bin, "chromium");
    symlinkSync((await chromiumPack()).executablePath, chrome);
    entry = await startAsPython({ CHROME_PATH: chrome });
    const running = entry;
    await within(60_000, "the entry's readiness", waitReady(running));
    await openSession(running);
    const browsers = browsersOf(running);
    expect(browsers.length).toBeGreaterThan(0);
    expect(browsers.map((pid) => commandLineIfLive(pid)[0])).toContain(chrome);
    process.kill(running.child.pid!, "SIGTERM");
    expect(await within(20_000, "the entry's exit", running.exited)).toBe(0);
    expect(await stillRunning(browsers)).toEqual([]);
    // Nothing of it answers any more: the process signalled was the service itself.
    const after = await fetch(`${running.base}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    expect(after).toBe(0);
  });

  it("refuses to start on a non-loopback HOST with only BROWSERBASE_API_KEY, saying why", async () => {
    entry = await startAsPython({ HOST: "0.0.0.0" });
    const running = entry;
    expect(await within(60_000, "the entry's exit", running.exited)).toBe(1);
    expect(running.printed()).toContain("only on a loopback address");
    expect(running.printed()).toContain("WAYFARER_API_KEYS=project:key");
    expect(running.printed()).not.toContain("listening on");
    expect(running.printed()).not.toContain(KEY);
  });

  it("without any key, starts and says in one line how to give one; every call is a 401 naming the header", async () => {
    entry = await startAsPython({ BROWSERBASE_API_KEY: "" });
    const running = entry;
    await within(60_000, "the entry's readiness", waitReady(running));
    expect(running.printed()).toMatch(/without an API key.*BROWSERBASE_API_KEY/);
    const refused = await call(running, "/sessions/start", {}, null);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain("x-bb-api-key");
    process.kill(-running.child.pid!, "SIGTERM");
    expect(await within(20_000, "the entry's exit", running.exited)).toBe(0);
  });
});
