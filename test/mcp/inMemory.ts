/**
 * An MCP server of Wayfarer and the official SDK's client in this process, joined by the SDK's
 * in-memory transport: what a client sees, with no child process. After each test the client,
 * the server and its browser are closed (the noLeftovers check then finds no process of it).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach } from "vitest";
import type { V3Options, Variables } from "../../lib/index.js";
import { Logger, type LogLine } from "../../lib/log.js";
import type { McpHost } from "../../lib/mcp/host.js";
import { localHost } from "../../lib/mcp/localHost.js";
import { buildMcpServer } from "../../lib/mcp/server.js";

export interface Connected {
  client: Client;
  host: McpHost;
  /** Every log line the server wrote (verbose 2). */
  lines: LogLine[];
  /** A tool's answer; a protocol error rejects. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

export interface ConnectOptions {
  options?: Partial<V3Options>;
  variables?: Variables;
  toolTimeoutMs?: number;
  /** The host ends its browser after this long without a call (unset: never). */
  idleMs?: number;
}

export function useMcp() {
  const opened: { client: Client; host: McpHost; close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of opened.splice(0)) {
      await o.client.close();
      await o.close();
      await o.host.close();
    }
  });
  return {
    async connect(given: ConnectOptions = {}): Promise<Connected> {
      const lines: LogLine[] = [];
      const logger = new Logger({ verbose: 2, disablePino: true, logger: (l) => lines.push(l) });
      const host = localHost({
        options: { env: "LOCAL", verbose: 0, disablePino: true, ...given.options } as V3Options,
        logger,
        ...(given.idleMs ? { idleMs: given.idleMs } : {}),
      });
      const server = await buildMcpServer(host, {
        variables: given.variables ?? {},
        toolTimeoutMs: given.toolTimeoutMs ?? 30_000,
        agentMaxSteps: 20,
        logger,
      });
      const client = new Client({ name: "wayfarer-test", version: "1.0.0" });
      opened.push({ client, host, close: () => server.close() });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      await client.connect(clientSide);
      return {
        client,
        host,
        lines,
        call: async (name, args = {}) =>
          (await client.callTool({ name, arguments: args })) as CallToolResult,
      };
    },
  };
}

/** The text blocks of an answer, joined. */
export function textOf(result: CallToolResult): string {
  return result.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

/** Everything an answer carries, as one string: every block and its structured content. */
export function allOf(result: CallToolResult): string {
  return JSON.stringify(result);
}

/** Runs `work` on the session's active page, behind the tools' back (what the page does itself). */
export function onPage<T>(
  host: McpHost,
  work: (page: import("playwright-core").Page) => Promise<T>,
): Promise<T> {
  return host.around(
    "test",
    (b) => work(b.context.activePage()!.playwrightPage),
    new AbortController().signal,
  );
}
