/**
 * `npm run mcp` as an MCP client runs it: the official SDK's Client and StdioClientTransport
 * spawning `node bin/wayfarer-mcp` with an environment given in full (as a client's config
 * block does), against real Chromium and the fixture pages; the model, where there is one, is
 * the model kit over HTTP. Each server's browser is a child of the server, not of this test, so
 * the tests follow those processes themselves: every way a server ends must end its browser.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { openaiAgent, call as toolCall } from "../support/llm/agentModel.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { idOfLine, useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { commandLineIfLive, liveDescendants, stillLive } from "../support/processes.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";
import { within } from "../support/waiting.js";
import { ENTRY, exitOf, useBrowserEnv } from "./stdioProcess.js";

const ROOT = join(import.meta.dirname, "..", "..");
const MODEL_KEY = "sk-mcp-model-0123456789";
const PAGE_TOOLS = [
  "open",
  "back",
  "read",
  "click",
  "hover",
  "fill",
  "type",
  "press",
  "select",
  "scroll",
  "fill_form",
  "screenshot",
  "tabs",
];
const MODEL_TOOLS = ["act", "extract", "observe", "agent"];

const pages = useStaticServer();
/** The pack's Chromium and its libraries: what a client's config would set. */
const browserEnv = useBrowserEnv();

interface Server {
  client: Client;
  pid: number;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Errors of the connection: a line on stdout that is not JSON-RPC is one. */
  errors: Error[];
}

const started: Server[] = [];
let kit: ModelKitServer | undefined;
afterEach(async () => {
  for (const server of started.splice(0)) await server.client.close().catch(() => {});
  await kit?.close();
  kit = undefined;
});

/** The server as a client config starts it, from a folder of no interest to it. */
async function startServer(env: Record<string, string>): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ENTRY],
    env: { ...browserEnv, ...env },
    cwd: tmpdir(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  const server: Server = { client, pid: 0, stderr: () => stderr, errors: [] };
  client.onerror = (error) => server.errors.push(error);
  started.push(server);
  await client.connect(transport).catch((error: unknown) => {
    throw new Error(`the server did not start: ${String(error)}\n${stderr}`);
  });
  server.pid = transport.pid!;
  return server;
}

async function call(server: Server, name: string, args: Record<string, unknown> = {}) {
  return (await server.client.callTool({ name, arguments: args })) as CallToolResult;
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");

/**
 * The server's Chromium processes: its children and the groups they lead, by their binary (tsx's
 * esbuild and the lifeline's sh are children too).
 */
const browsersOf = (pid: number) =>
  liveDescendants(pid).filter((p) => commandLineIfLive(p)[0] === browserEnv.CHROME_PATH);

/** The entry run to its exit with the browser's environment and `env`. */
const exitWith = (env: Record<string, string>, args: string[] = []) =>
  exitOf({ ...browserEnv, ...env }, args);

describe("npm run mcp (bin/wayfarer-mcp over stdio)", () => {
  it("lists its tools (no model tools without a model) before any browser, reads a fixture page, clicks by id; on stdin's end it closes the browser and exits", async () => {
    const server = await startServer({});
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(PAGE_TOOLS));
    for (const name of MODEL_TOOLS) expect(names).not.toContain(name);
    expect(browsersOf(server.pid)).toEqual([]);

    const opened = await call(server, "open", { url: pages.url("agent/counter.html") });
    expect(opened.isError).toBeFalsy();
    const read = await call(server, "read", { fresh: true });
    expect(textOf(read)).toContain("Cups of tea");
    const id = idOfLine(textOf(read), 'button "Add a cup"');
    expect(id).toBeDefined();
    const clicked = await call(server, "click", { id });
    expect(clicked.isError).toBeFalsy();
    expect(textOf(clicked)).toContain("1 cups");

    const browsers = browsersOf(server.pid);
    expect(browsers.length).toBeGreaterThan(0);
    // As a client ends it: stdin closed (then SIGTERM 2 s later, were it still running).
    await server.client.close();
    expect(server.stderr()).toMatch(/stdin (ended|closed): closing the browser/);
    expect(await stillLive([server.pid, ...browsers], 5_000)).toEqual([]);
    // Every line on stdout was the protocol's.
    expect(server.errors).toEqual([]);
  });

  it("does not start with a variable that has no origins, an unknown flag or a refused value, and names it", async () => {
    const secret = "hunter2-typed-nowhere";
    const [noOrigins, unknownFlag, badFlag, badVariable] = await Promise.all([
      exitWith({ WAYFARER_MCP_VAR_PASSWORD: secret }),
      exitWith({}, ["--headless"]),
      exitWith({}, ["--tool-timeout-ms", "5"]),
      exitWith({ WAYFARER_MCP_AGENT_MAX_STEPS: "many" }),
    ]);
    for (const run of [noOrigins, unknownFlag, badFlag, badVariable]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
    }
    expect(noOrigins.stderr).toContain("WAYFARER_MCP_ORIGINS_PASSWORD");
    expect(noOrigins.stderr).not.toContain(secret);
    expect(unknownFlag.stderr).toContain("--headless");
    expect(badFlag.stderr).toMatch(/Invalid --tool-timeout-ms: .*1000/);
    expect(badVariable.stderr).toMatch(/Invalid WAYFARER_MCP_AGENT_MAX_STEPS: .*number/);
  });

  it("with a model (the model kit over HTTP): lists the model tools, runs the agent with progress notifications, extracts with a JSON Schema; on SIGTERM it closes the browser", async () => {
    kit = await serveModelKit(
      openaiAgent((turn) =>
        turn.history.length === 0
          ? { calls: [toolCall("act", { action: "add black tea to the cart" })] }
          : { calls: [toolCall("done", { success: true, message: "Black tea is in the cart" })] },
      ),
      shopModel(),
    );
    const server = await startServer({
      WAYFARER_MCP_MODEL: "openai/gpt-4.1-mini",
      OPENAI_API_KEY: MODEL_KEY,
      OPENAI_BASE_URL: kit.url,
    });
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([...PAGE_TOOLS, ...MODEL_TOOLS]));
    expect(
      (await call(server, "open", { url: pages.url("outline/shop.html") })).isError,
    ).toBeFalsy();

    const progress: Progress[] = [];
    const ran = (await server.client.callTool(
      { name: "agent", arguments: { task: "Add black tea to the cart", maxSteps: 5 } },
      undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: 120_000 },
    )) as CallToolResult;
    expect(ran.isError, textOf(ran)).toBeFalsy();
    expect(textOf(ran)).toContain("Black tea is in the cart");
    // A step's start, then its tool: each told, out of the steps it may take, always onwards.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const p of progress) expect(p).toMatchObject({ total: 5, message: expect.any(String) });
    const figures = progress.map((p) => p.progress);
    expect(figures).toEqual([...figures].sort((a, b) => a - b));
    expect(progress.map((p) => p.message).join("\n")).toContain("act");

    const extracted = await call(server, "extract", {
      instruction: "what the cart says",
      schema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
    });
    expect(extracted.isError, textOf(extracted)).toBeFalsy();
    expect(extracted.structuredContent).toEqual({ item: "black" });
    // The model's key went to the model, and nowhere into the conversation.
    const keys = new Set(kit.requests().map((r) => r.headers.get("authorization")));
    expect(keys).toEqual(new Set([`Bearer ${MODEL_KEY}`]));
    expect(JSON.stringify([ran, extracted])).not.toContain(MODEL_KEY);

    const browsers = browsersOf(server.pid);
    expect(browsers.length).toBeGreaterThan(0);
    process.kill(server.pid, "SIGTERM");
    expect(await stillLive([server.pid, ...browsers], 5_000)).toEqual([]);
    expect(server.stderr()).toContain("SIGTERM: closing the browser");
    expect(server.stderr()).not.toContain(MODEL_KEY);
  });

  it("a client killed outright (SIGKILL) leaves no browser: the server sees its stdin end, closes the browser and exits", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(import.meta.dirname, "clientProcess.ts"),
        ENTRY,
        pages.url("agent/counter.html"),
      ],
      {
        cwd: ROOT,
        env: { ...process.env, MCP_SERVER_ENV: JSON.stringify(browserEnv) },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // The server's stderr is the client's: it outlives the client.
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const ready = await within(
      90_000,
      "the client's page",
      new Promise<{ server: number; opened: boolean }>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("\n")) resolve(JSON.parse(out));
        });
        child.once("exit", (code) =>
          reject(new Error(`the client exited with ${code}: ${stderr}`)),
        );
      }),
    );
    expect(ready.opened).toBe(true);
    const browsers = browsersOf(ready.server);
    expect(browsers.length).toBeGreaterThan(0);

    child.kill("SIGKILL");
    await exited;
    expect(await stillLive([ready.server, ...browsers], 5_000)).toEqual([]);
    expect(stderr).toMatch(/stdin (ended|closed): closing the browser/);
  });

  it("killed outright itself (SIGKILL), no exit hook runs: its lifeline ends the browser", async () => {
    const server = await startServer({});
    expect((await call(server, "open", { url: pages.url("basic.html") })).isError).toBeFalsy();
    const browsers = browsersOf(server.pid);
    expect(browsers.length).toBeGreaterThan(0);
    process.kill(server.pid, "SIGKILL");
    expect(await stillLive(browsers, 5_000)).toEqual([]);
    expect(server.stderr()).not.toContain("closing the browser");
  });
});

describe("npm run mcp with WAYFARER_API_KEY (REMOTE)", () => {
  const service = useService();
  const model = useModelServer(shopModel());

  it("reads and clicks by id on a session of the service, launches no browser of its own, and ends that session when the client closes", async () => {
    const server = await startServer({
      WAYFARER_API_KEY: KEYS.alpha,
      WAYFARER_API_URL: service.url,
    });
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    for (const name of MODEL_TOOLS) expect(names).not.toContain(name);

    const opened = await call(server, "open", { url: pages.url("agent/counter.html") });
    expect(opened.isError, textOf(opened)).toBeFalsy();
    expect(service.service.sessions.size).toBe(1);
    const read = await call(server, "read", { fresh: true });
    const id = idOfLine(textOf(read), 'button "Add a cup"');
    expect(id).toBeDefined();
    const clicked = await call(server, "click", { id });
    expect(clicked.isError, textOf(clicked)).toBeFalsy();
    expect(textOf(clicked)).toContain("1 cups");
    expect(browsersOf(server.pid)).toEqual([]);
    expect(server.stderr()).toContain("REMOTE");
    expect(server.stderr()).not.toContain(KEYS.alpha);

    await server.client.close();
    await within(
      10_000,
      "the service session's end",
      (async () => {
        while (service.service.sessions.size > 0) await new Promise((r) => setTimeout(r, 100));
      })(),
    );
  });

  it("with a model: act and extract run on the service, which calls the model with the caller's key (never the conversation's business)", async () => {
    const server = await startServer({
      WAYFARER_API_KEY: KEYS.alpha,
      WAYFARER_API_URL: service.url,
      WAYFARER_MCP_MODEL: "openai/gpt-4.1-mini",
      OPENAI_API_KEY: MODEL_KEY,
    });
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(MODEL_TOOLS));
    expect(
      (await call(server, "open", { url: pages.url("outline/shop.html") })).isError,
    ).toBeFalsy();
    const acted = await call(server, "act", { action: "add black tea to the cart" });
    expect(acted.isError, textOf(acted)).toBeFalsy();
    const extracted = await call(server, "extract", {
      instruction: "what the cart says",
      schema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
    });
    expect(extracted.isError, textOf(extracted)).toBeFalsy();
    expect(extracted.structuredContent).toEqual({ item: "black" });
    // The service (this process) asked the model, with the key the MCP server was given.
    const asked = model.requestsTo("api.openai.com");
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(new Set(asked.map((r) => r.headers.get("authorization")))).toEqual(
      new Set([`Bearer ${MODEL_KEY}`]),
    );
    expect(browsersOf(server.pid)).toEqual([]);
    expect(JSON.stringify([acted, extracted]) + server.stderr()).not.toContain(MODEL_KEY);
    await server.client.close();
  });

  it("killed outright (SIGKILL), it leaves no session behind: its connection to the browser was the session's lifeline, and the service ends it after its grace", async () => {
    const server = await startServer({
      WAYFARER_API_KEY: KEYS.alpha,
      WAYFARER_API_URL: service.url,
    });
    const opened = await call(server, "open", { url: pages.url("basic.html") });
    expect(opened.isError, textOf(opened)).toBeFalsy();
    const [session] = service.service.sessions.all();
    expect(session).toBeDefined();
    const browserPid = service.service.sessions.browserPidOf(session!.id);
    expect(browserPid).toBeGreaterThan(0);

    process.kill(server.pid, "SIGKILL");
    // The grace (5 s) and a margin: no idle end (minutes) is waited for.
    await within(
      20_000,
      "the service session's end after its client was killed",
      (async () => {
        while (service.service.sessions.size > 0) await new Promise((r) => setTimeout(r, 100));
      })(),
    );
    expect(await stillLive([browserPid!], 5_000)).toEqual([]);
  });
});
