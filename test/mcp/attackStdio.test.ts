/**
 * `npm run mcp` as a process: a variable's value, set in its environment only, never reaches its
 * stderr, even at WAYFARER_MCP_VERBOSE=2 while it is typed and read back, and no flag takes a
 * value of a variable or a key (a flag would show it in a process list): each is refused, named,
 * and the start fails with nothing on stdout.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { chromiumPack } from "../../lib/browser/chromiumPack.js";
import { idOfLine } from "../support/llm/modelServer.js";
import { useStaticServer } from "../support/staticServer.js";

const ENTRY = join(import.meta.dirname, "..", "..", "bin", "wayfarer-mcp");
const SECRET = "hunter2-stdio-attack-value";
const pages = useStaticServer();

let browserEnv: Record<string, string> = {};
beforeAll(async () => {
  const pack = await chromiumPack();
  browserEnv = { CHROME_PATH: pack.executablePath, ...pack.env };
});

/** Runs the entry with `args` to its exit (killed after 30 s): its code and its output. */
async function exitOf(args: string[]) {
  const child = spawn(process.execPath, [ENTRY, ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? "", ...browserEnv },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe("npm run mcp against a leak of a variable's value", () => {
  it("at WAYFARER_MCP_VERBOSE=2, typing %PASSWORD% and reading it back writes no value to stderr", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [ENTRY],
      env: {
        ...browserEnv,
        WAYFARER_MCP_VERBOSE: "2",
        WAYFARER_MCP_VAR_PASSWORD: SECRET,
        WAYFARER_MCP_ORIGINS_PASSWORD: pages.origin,
      },
      cwd: tmpdir(),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const client = new Client({ name: "attack-stdio", version: "1.0.0" });
    await client.connect(transport);
    const answers: CallToolResult[] = [];
    const call = async (name: string, args: Record<string, unknown>) => {
      const answer = (await client.callTool({ name, arguments: args })) as CallToolResult;
      answers.push(answer);
      return answer;
    };
    try {
      const text = (r: CallToolResult) =>
        r.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
      const page = text(await call("open", { url: pages.url("secrets/echo.html") }));
      const filled = await call("fill", {
        id: idOfLine(page, 'textbox "Token"'),
        value: "%PASSWORD%",
      });
      expect(filled.isError, text(filled)).toBeFalsy();
      expect(text(filled)).toContain("You typed: %PASSWORD%");
      // An error that could carry it: an unknown key pressed with the value's name.
      await call("press", { key: "%PASSWORD%" });
      await call("read", { fresh: true });
    } finally {
      await client.close();
    }
    // Verbose enough to show the calls, and still no value.
    expect(stderr).toContain("fill");
    expect(stderr).not.toContain(SECRET);
    expect(JSON.stringify(answers)).not.toContain(SECRET);
  });

  it("no flag takes a variable's value or a key: each is refused by name, nothing started", async () => {
    const runs = await Promise.all(
      [
        ["--var", `password=${SECRET}`],
        [`--WAYFARER_MCP_VAR_PASSWORD=${SECRET}`],
        ["--variable", SECRET],
        ["--api-key", SECRET],
        [`--password=${SECRET}`],
      ].map(async (args) => ({ args, run: await exitOf(args) })),
    );
    for (const { args, run } of runs) {
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.stdout, args.join(" ")).toBe("");
      expect(run.stderr, args.join(" ")).toContain(args[0]!.split("=")[0]);
      expect(run.stderr, args.join(" ")).not.toContain(SECRET);
    }
  });
});
