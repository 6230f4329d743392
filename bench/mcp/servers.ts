/**
 * The two MCP servers the bench compares, each as its calling model meets it: a stdio child
 * spoken to by the official SDK's client. Ours is `node bin/wayfarer-mcp`; theirs is
 * @playwright/mcp's cli.js from bench/node_modules (its own Playwright, apart from ours). Both
 * start the same Chromium binary headless at 1280×720, with our launcher's command line and the
 * corpus' network switches, so that the figures compare what the servers send, not browsers.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedExecutable } from "../../lib/browser/executable.js";
import { BENCH_DIR } from "../snapshot/engines.js";

const ROOT = join(BENCH_DIR, "..");
export const PLAYWRIGHT_MCP = "@playwright/mcp";
/** Long pages under a loaded machine: well over the SDK's 60 s default would be a hang. */
const CALL_TIMEOUT_MS = 180_000;
/** Preloaded into each server: its own connections off the loopback are refused and told. */
const NO_EGRESS = `--import=${pathToFileURL(join(import.meta.dirname, "noEgress.mjs")).href}`;
const REFUSED = /^wayfarer-bench: refused a connection to (.+)$/gm;

export interface McpSide {
  readonly name: string;
  /** The server's process id (the stdio child). */
  readonly pid: number;
  open(url: string): Promise<void>;
  /** The page as one read call answers it to the model: the text of its content blocks. */
  read(): Promise<string>;
  /**
   * The whole page from `first` (a read's answer): the read itself, or, when it gave one part of
   * a longer outline, every part.
   */
  allParts(first: string): Promise<string[]>;
  /** A fresh read, the target of the element named `name` in it; then the click to time. */
  prepareClick(name: string): Promise<() => Promise<void>>;
  /** The tools/list answer as JSON: the tool definitions a model is given. */
  toolsJson(): Promise<string>;
  /** Hosts off the loopback the server's own process tried to reach (refused). */
  refused(): string[];
  close(): Promise<void>;
}

const textOf = (result: CallToolResult) =>
  result.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n");

interface Connected {
  client: Client;
  pid: number;
  stderr(): string;
  refused(): string[];
  call(name: string, args?: Record<string, unknown>): Promise<string>;
}

async function connect(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...getDefaultEnvironment(), ...env, NODE_OPTIONS: NO_EGRESS },
    cwd: tmpdir(),
    stderr: "pipe",
  });
  let stderr = "";
  const refused = new Set<string>();
  transport.stderr?.on("data", (d: Buffer) => {
    const text = d.toString();
    for (const m of text.matchAll(REFUSED)) refused.add(m[1]!);
    // The tail is enough to explain a failure; a verbose server must not grow this forever.
    stderr = (stderr + text).slice(-8_000);
  });
  const client = new Client({ name: "wayfarer-bench", version: "1.0.0" });
  await client.connect(transport).catch((error: unknown) => {
    throw new Error(`${name} did not start: ${String(error)}\n${stderr}`);
  });
  const call = async (tool: string, a: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name: tool, arguments: a }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    })) as CallToolResult;
    const text = textOf(result);
    if (result.isError) throw new Error(`${name} ${tool}: ${text.slice(0, 500)}`);
    return text;
  };
  return {
    client,
    pid: transport.pid ?? 0,
    stderr: () => stderr,
    refused: () => [...refused],
    call,
  };
}

/** `[12] button "Add a cup"` → 12: the line's id whose line holds `needle`. */
function idOfLine(outline: string, needle: string): string | undefined {
  for (const line of outline.split("\n")) {
    const m = /^\s*\[(\d+)\] /.exec(line);
    if (m && line.includes(needle)) return m[1];
  }
  return undefined;
}

const PARTS = /^\(part (\d+) of (\d+)/m;

export async function startWayfarerMcp(
  executable: ResolvedExecutable,
  browserArgs: string[],
): Promise<McpSide> {
  const server = await connect(
    "wayfarer",
    process.execPath,
    [
      join(ROOT, "bin", "wayfarer-mcp"),
      `--executable-path=${executable.path}`,
      // The `=` form: a switch's own value starts with "--", which parseArgs would take as a flag.
      ...browserArgs.map((a) => `--browser-arg=${a}`),
    ],
    { ...executable.env, WAYFARER_MCP_TOOL_TIMEOUT_MS: String(CALL_TIMEOUT_MS) },
  );
  return {
    name: "wayfarer",
    pid: server.pid,
    open: async (url) => {
      await server.call("open", { url });
    },
    read: () => server.call("read", { fresh: true }),
    allParts: async (first) => {
      const m = PARTS.exec(first);
      if (!m) return [first];
      const parts: string[] = [];
      for (let k = 1; k <= Number(m[2]); k++) {
        parts.push(
          k === Number(m[1]) ? first : await server.call("read", { fresh: true, part: k }),
        );
      }
      return parts;
    },
    prepareClick: async (name) => {
      const outline = await server.call("read", { fresh: true });
      const id = idOfLine(outline, `"${name}"`);
      if (!id) throw new Error(`wayfarer: no [id] for "${name}" in\n${outline}`);
      return async () => {
        await server.call("click", { id });
      };
    },
    toolsJson: async () => JSON.stringify((await server.client.listTools()).tools),
    refused: server.refused,
    close: () => server.client.close(),
  };
}

export interface PlaywrightSide extends McpSide {
  /** Its output folder (snapshots after actions, the config): removed by close(). */
  readonly outputDir: string;
  /** The page's innerText, by browser_evaluate: what recall is measured against. */
  visibleText(): Promise<string>;
}

/** `- button "Add a cup" [ref=e4] [cursor=pointer]` → e4. */
function refOfLine(snapshot: string, needle: string): string | undefined {
  for (const line of snapshot.split("\n")) {
    const m = /\[ref=([^\]]+)\]/.exec(line);
    if (m && line.includes(needle)) return m[1];
  }
  return undefined;
}

export async function startPlaywrightMcp(
  executable: ResolvedExecutable,
  browserArgs: string[],
): Promise<PlaywrightSide> {
  const outputDir = await mkdtemp(join(tmpdir(), "wayfarer-bench-pwmcp-"));
  const config = {
    browser: {
      browserName: "chromium",
      isolated: true,
      launchOptions: {
        executablePath: executable.path,
        headless: true,
        // Playwright adds --no-sandbox unless asked for the sandbox; ours decides by the user.
        chromiumSandbox: !browserArgs.includes("--no-sandbox"),
        // Playwright's defaults come first and these after; Chromium keeps a switch's last value.
        args: browserArgs,
      },
      contextOptions: { viewport: { width: 1280, height: 720 } },
    },
    outputDir,
  };
  const configFile = join(outputDir, "config.json");
  await writeFile(configFile, JSON.stringify(config));
  let server: Connected;
  try {
    server = await connect(
      "playwright-mcp",
      process.execPath,
      [
        join(BENCH_DIR, "node_modules", ...PLAYWRIGHT_MCP.split("/"), "cli.js"),
        "--config",
        configFile,
      ],
      executable.env,
    );
  } catch (error) {
    await rm(outputDir, { recursive: true, force: true });
    throw error;
  }
  return {
    name: "playwright-mcp",
    pid: server.pid,
    outputDir,
    open: async (url) => {
      await server.call("browser_navigate", { url });
    },
    read: () => server.call("browser_snapshot"),
    allParts: async (first) => [first],
    prepareClick: async (name) => {
      const snapshot = await server.call("browser_snapshot");
      const ref = refOfLine(snapshot, `"${name}"`);
      if (!ref) throw new Error(`playwright-mcp: no ref for "${name}" in\n${snapshot}`);
      return async () => {
        await server.call("browser_click", { target: ref, element: name });
      };
    },
    visibleText: async () => {
      const answer = await server.call("browser_evaluate", {
        function: "() => document.body?.innerText ?? ''",
      });
      // "### Result\n\"…\"" and more sections after: the result is one JSON string.
      const m = /### Result\n("(?:[^"\\]|\\.)*")/.exec(answer);
      if (!m) throw new Error(`playwright-mcp: browser_evaluate answered\n${answer.slice(0, 500)}`);
      return JSON.parse(m[1]!) as string;
    },
    toolsJson: async () => JSON.stringify((await server.client.listTools()).tools),
    refused: server.refused,
    close: async () => {
      try {
        await server.client.close();
      } finally {
        await rm(outputDir, { recursive: true, force: true });
      }
    },
  };
}
