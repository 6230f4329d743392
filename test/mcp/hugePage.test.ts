/**
 * `npm run mcp` as a process, on a page that throws an error of 50 million characters: Chromium
 * writes ~600 MB of JSON for it over the pipe, which once ended the server (V8's longest string
 * passed). Now the server lives: that browser is ended, its stderr says why, and the next call
 * starts another and answers.
 */
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { useStaticServer } from "../support/staticServer.js";
import { ENTRY, useBrowserEnv } from "./stdioProcess.js";

const pages = useStaticServer();
const browserEnv = useBrowserEnv();
const text = (r: CallToolResult) =>
  r.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");

describe("npm run mcp on a page whose error is 600 MB", () => {
  it("lives: the browser is ended and said so, and the next call gets a new one", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [ENTRY],
      env: browserEnv,
      cwd: tmpdir(),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    let exited = false;
    const client = new Client({ name: "huge-page", version: "1.0.0" });
    client.onclose = () => {
      exited = true;
    };
    await client.connect(transport);
    try {
      const opened = (await client.callTool({
        name: "open",
        arguments: { url: pages.url("hugeError.html") },
      })) as CallToolResult;
      expect(opened.isError, text(opened)).toBeFalsy();
      const deadline = Date.now() + 60_000;
      while (!stderr.includes("the browser was ended") && Date.now() < deadline && !exited) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(exited).toBe(false);
      expect(stderr).toMatch(
        /the browser was ended: its browser sent a \d+ MB message \(Runtime\.exceptionThrown\)/,
      );
      const next = (await client.callTool({
        name: "open",
        arguments: { url: pages.url("basic.html") },
      })) as CallToolResult;
      expect(next.isError, text(next)).toBeFalsy();
      expect(text(next)).toContain("Basic");
    } finally {
      await client.close();
    }
  }, 120_000);
});
