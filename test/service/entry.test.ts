/**
 * bin/wayfarer-service (running the build in dist/, which the run's global setup made current)
 * started as systemd runs it (its own settings, a saved key reused across
 * restarts and replaced by --new-key, SIGTERM to the main pid), and as the Python SDK's local
 * mode starts its server binary
 * (STAGEHAND_SEA_BINARY): no arguments, a new session and process group, the parent's
 * environment plus HOST, PORT, HEADLESS, MODEL_API_KEY, NODE_ENV=production and BB_ENV=local, then
 * polled on /readyz, /healthz and /health every 100 ms and called with x-bb-api-key. The service is
 * this very process (no wrapper): SIGTERM to its group (the SDK's close) or to its pid alone
 * (systemd) ends every browser and exits 0.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chromiumPack } from "../../lib/browser/chromiumPack.js";
import { buildIfStale } from "../support/buildService.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { shopModel } from "../support/llm/shopModel.js";
import { freePort } from "../support/ports.js";
import {
  commandLine,
  commandLineIfLive,
  isEgressWorker,
  liveDescendants,
  liveGroupMembers,
  stillRunning,
} from "../support/processes.js";
import { useStaticServer } from "../support/staticServer.js";
import { within } from "../support/waiting.js";

const ROOT = join(import.meta.dirname, "..", "..");
const ENTRY = join(ROOT, "bin", "wayfarer-service");
const KEY = "any value in local mode";
/** An operator's key, in WAYFARER_API_KEYS. */
const OPS_KEY = "ops-key-0123456789abcdef";
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
function startAsPython(extra: Record<string, string> = {}): Promise<Entry> {
  return startEntry([], join(folder, "project"), {
    NODE_ENV: "production",
    BB_ENV: "local",
    HEADLESS: "true",
    MODEL_API_KEY: ENV_MODEL_KEY,
    BROWSERBASE_API_KEY: KEY,
    XDG_CACHE_HOME: join(folder, "cache"),
    ...extra,
  });
}

/**
 * As a systemd unit runs it: ExecStart=…/bin/wayfarer-service with its arguments, the unit's
 * Environment/EnvironmentFile settings, a data folder of its own (StateDirectory), and a
 * session and cgroup of its own (here: a process group, which afterEach can end).
 */
function startAsSystemd(args: string[] = [], extra: Record<string, string> = {}): Promise<Entry> {
  return startEntry(args, folder, {
    NODE_ENV: "production",
    WAYFARER_DATA_DIR: join(folder, "state"),
    ...extra,
  });
}

async function startEntry(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  /** What is run: the entry itself, or `npm run service` (whose script execs the entry). */
  command: [string, ...string[]] = [ENTRY],
): Promise<Entry> {
  const port = await freePort();
  const [program, ...before] = command;
  const child = spawn(program, [...before, ...args], {
    cwd,
    detached: true,
    env: {
      ...parentEnv(),
      HOST: "127.0.0.1",
      PORT: String(port),
      WAYFARER_ALLOW_HOSTS: "127.0.0.1",
      ...env,
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

/**
 * As _wait_ready_sync: /readyz, /healthz, /health in turn, the first 200 wins; a request that
 * fails or takes over 1 s starts the round again from /readyz after 100 ms.
 */
async function waitReady(running: Entry): Promise<string> {
  let gone = false;
  void running.exited.then(() => {
    gone = true;
  });
  while (!gone) {
    try {
      for (const path of ["/readyz", "/healthz", "/health"]) {
        const response = await fetch(`${running.base}${path}`, {
          signal: AbortSignal.timeout(1_000),
        });
        if (response.status === 200) return path;
      }
    } catch {
      // Not listening yet, or slow: the SDK tries again.
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
    (pid) =>
      pid !== running.child.pid && commandLineIfLive(pid)[0] !== "sh" && !isEgressWorker(pid),
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

describe("bin/wayfarer-service as systemd runs it", () => {
  /** A route that needs a key and launches nothing: 404 for a key that opens the service, else 401. */
  const opens = (running: Entry, key: string) =>
    fetch(`${running.base}/v1/sessions/no-such-session`, { headers: { "x-wf-api-key": key } }).then(
      (r) => r.status === 404,
    );
  const stopped = async (running: Entry) => {
    process.kill(running.child.pid!, "SIGTERM");
    expect(await within(20_000, "the entry's exit", running.exited)).toBe(0);
  };

  it("makes a key, reuses it after a restart saying so, replaces it with --new-key; SIGTERM to its pid ends every browser and exits 0", async () => {
    entry = await startAsSystemd();
    let running = entry;
    await within(60_000, "the entry's readiness", waitReady(running));
    const made = running.printed().match(/: (wf_[\w-]+)\n/)?.[1];
    expect(made).toBeDefined();
    // Two sessions, each with its browser, when the unit is stopped.
    for (let i = 0; i < 2; i++) {
      const started = await fetch(`${running.base}/v1/sessions/start`, {
        method: "POST",
        headers: { "x-wf-api-key": made!, "content-type": "application/json" },
        body: "{}",
      }).then((r) => r.json() as Promise<Answer>);
      expect(started.success).toBe(true);
    }
    const browsers = browsersOf(running);
    expect(browsers.length).toBeGreaterThan(1);
    await stopped(running);
    expect(await stillRunning(browsers)).toEqual([]);
    expect(running.printed()).toContain("SIGTERM: ending every session");

    // Restarted: the saved key, said so with where it is kept and how to rotate it.
    entry = await startAsSystemd();
    running = entry;
    await within(60_000, "the entry's readiness", waitReady(running));
    const keyFile = join(folder, "state", "keys.json");
    expect(running.printed()).toContain(
      `API key: reusing the saved key of project "default" (its hash, in ${keyFile}). To rotate it, start with --new-key`,
    );
    expect(running.printed()).not.toContain(made!);
    expect(await opens(running, made!)).toBe(true);
    await stopped(running);

    // Rotated: a new key shown once; the old one opens nothing, there or after a restart.
    entry = await startAsSystemd(["--new-key"]);
    running = entry;
    await within(60_000, "the entry's readiness", waitReady(running));
    const fresh = running.printed().match(/: (wf_[\w-]+)\n/)?.[1];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(made);
    expect(await opens(running, fresh!)).toBe(true);
    expect(await opens(running, made!)).toBe(false);
    await stopped(running);
  });

  it("under `npm run service` is npm's own child, so SIGTERM to npm alone reaches it: every browser ended, nothing left", async () => {
    const root = join(import.meta.dirname, "..", "..");
    entry = await startEntry([], root, { WAYFARER_API_KEYS: `ops:${OPS_KEY}` }, [
      "npm",
      "run",
      "--silent",
      "service",
    ]);
    const running = entry;
    await within(60_000, "the service's readiness", waitReady(running));
    // No sh, no tsx CLI: npm's one child is node running the entry.
    const children = liveDescendants(running.child.pid!).filter(
      (pid) => commandLineIfLive(pid).at(-1) === "bin/wayfarer-service",
    );
    expect(children).toHaveLength(1);
    expect(commandLine(children[0]!)[0]).toMatch(/node$/);
    const started = await fetch(`${running.base}/v1/sessions/start`, {
      method: "POST",
      headers: { "x-wf-api-key": OPS_KEY, "content-type": "application/json" },
      body: "{}",
    }).then((r) => r.json() as Promise<Answer>);
    expect(started.success).toBe(true);
    const browsers = liveDescendants(children[0]!).filter(
      (pid) => pid !== children[0] && commandLineIfLive(pid)[0] !== "sh" && !isEgressWorker(pid),
    );
    expect(browsers.length).toBeGreaterThan(0);
    process.kill(running.child.pid!, "SIGTERM");
    await within(20_000, "npm's exit", running.exited);
    expect(await stillRunning([...children, ...browsers])).toEqual([]);
    expect(liveGroupMembers(running.child.pid!)).toEqual([]);
    expect(running.printed()).toContain("SIGTERM: ending every session");
  });

  it("refuses an argument it does not know, naming the one it takes", async () => {
    entry = await startAsSystemd(["--port", "80"]);
    const running = entry;
    expect(await within(60_000, "the entry's exit", running.exited)).toBe(1);
    expect(running.printed()).toContain("--port");
    expect(running.printed()).toContain("--new-key");
    expect(running.printed()).not.toContain("listening on");
  });

  it("refuses --new-key when WAYFARER_API_KEYS holds the keys", async () => {
    entry = await startAsSystemd(["--new-key"], {
      WAYFARER_API_KEYS: "ops:a-key-of-the-operator-0123456789",
    });
    const running = entry;
    expect(await within(60_000, "the entry's exit", running.exited)).toBe(1);
    expect(running.printed()).toMatch(/--new-key.*WAYFARER_API_KEYS is set/);
    expect(running.printed()).not.toContain("a-key-of-the-operator");
  });
});

describe("bin/wayfarer-service with a current build in dist/", () => {
  beforeAll(buildIfStale);

  /** What a visitor gets, each answer's own address written as BASE: the pages and their assets. */
  async function visit(running: Entry): Promise<Record<string, unknown>> {
    const seen: Record<string, unknown> = {};
    const get = async (path: string, accept = "text/html") => {
      const response = await fetch(`${running.base}${path}`, { headers: { accept } });
      const bytes = Buffer.from(await response.arrayBuffer());
      const text = bytes.toString("utf8").replaceAll(running.base, "BASE");
      return { status: response.status, type: response.headers.get("content-type"), text };
    };
    const digest = (text: string) => createHash("sha256").update(text).digest("hex");
    seen["/readyz"] = (await get("/readyz")).status;
    seen["/"] = await get("/");
    seen["/ as JSON"] = await get("/", "application/json");
    seen["/v1/openapi.json"] = await get("/v1/openapi.json", "application/json");
    const docs = await get("/docs/");
    seen["/docs"] = docs;
    // Every script and style sheet the reference page loads: Swagger UI's, from node_modules.
    for (const [, asset] of docs.text.matchAll(/(?:src|href)="\.\/([^"]+)"/g)) {
      const { status, type, text } = await get(`/docs/${asset}`, "*/*");
      seen[`/docs/${asset}`] = { status, type, sha256: digest(text), length: text.length };
    }
    for (const path of [
      "/dashboard",
      "/dashboard/some-session",
      "/dashboard/page.js",
      "/dashboard/project.js",
    ]) {
      const { status, type, text } = await get(path);
      seen[path] = { status, type, sha256: digest(text), length: text.length };
    }
    return seen;
  }

  it("serves what lib/ under tsx serves (front page, API docs and their assets, dashboard pages, readiness), and on SIGTERM exits 0", async () => {
    const settings = (name: string) => ({
      NODE_ENV: "production",
      WAYFARER_API_KEYS: `ops:${OPS_KEY}`,
      WAYFARER_DATA_DIR: join(folder, name),
    });
    entry = await startEntry([], folder, settings("built"));
    let running = entry;
    await within(60_000, "the built entry's readiness", waitReady(running));
    expect(commandLine(running.child.pid!)).toEqual([expect.stringMatching(/node$/), ENTRY]);
    expect(running.printed()).toContain("wayfarer-service: running the build in dist/");
    const built = await visit(running);
    process.kill(running.child.pid!, "SIGTERM");
    expect(await within(20_000, "the built entry's exit", running.exited)).toBe(0);
    expect(running.printed()).toContain("SIGTERM: ending every session");

    entry = await startEntry([], ROOT, settings("tsx"), [
      process.execPath,
      "--import",
      "tsx",
      join(ROOT, "lib", "service", "main.ts"),
    ]);
    running = entry;
    await within(60_000, "the tsx service's readiness", waitReady(running));
    const fromSource = await visit(running);
    process.kill(running.child.pid!, "SIGTERM");
    expect(await within(20_000, "the tsx service's exit", running.exited)).toBe(0);

    expect(built).toEqual(fromSource);
    // And what was compared is the real thing: pages with their scripts, the version, the docs.
    expect(built["/readyz"]).toBe(200);
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    expect(built["/ as JSON"]).toMatchObject({
      status: 200,
      text: expect.stringContaining(version),
    });
    expect(built["/docs"]).toMatchObject({ status: 200, text: expect.stringContaining("swagger") });
    const assets = Object.keys(built).filter((path) => path.startsWith("/docs/"));
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const path of [...assets, "/dashboard", "/dashboard/some-session", "/dashboard/page.js"]) {
      expect(built[path], path).toMatchObject({ status: 200, length: expect.any(Number) });
      expect((built[path] as { length: number }).length, path).toBeGreaterThan(100);
    }
  });
});
