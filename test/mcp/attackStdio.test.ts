/**
 * `npm run mcp` as a process: a variable's value, set in its environment only, never reaches its
 * stderr, even at WAYFARER_MCP_VERBOSE=2 while it is typed and read back, and no flag takes a
 * value of a variable or a key (a flag would show it in a process list): each is refused, named,
 * and the start fails with nothing on stdout.
 */
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { idOfLine } from "../support/llm/modelServer.js";
import { useStaticServer } from "../support/staticServer.js";
import { ENTRY, exitOf, useBrowserEnv } from "./stdioProcess.js";

const SECRET = "hunter2-stdio-attack-value";
const pages = useStaticServer();

const browserEnv = useBrowserEnv();

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
      ].map(async (args) => ({ args, run: await exitOf(browserEnv, args) })),
    );
    for (const { args, run } of runs) {
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.stdout, args.join(" ")).toBe("");
      expect(run.stderr, args.join(" ")).toContain(args[0]!.split("=")[0]);
      expect(run.stderr, args.join(" ")).not.toContain(SECRET);
    }
  });
});
