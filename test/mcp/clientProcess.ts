/**
 * An MCP client in a process of its own, for the test that kills it (stdio.test.ts): it starts
 * `node bin/wayfarer-mcp` as a client configuration would, opens the page given (so that the
 * server has a browser), prints the server's pid as one JSON line, and waits to be killed.
 * Usage: node --import tsx clientProcess.ts <entry> <url>, the server's environment as JSON
 * in MCP_SERVER_ENV.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [entry, url] = process.argv.slice(2);
if (!entry || !url) throw new Error("usage: clientProcess.ts <entry> <url>");
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [entry],
  env: JSON.parse(process.env.MCP_SERVER_ENV ?? "{}") as Record<string, string>,
  stderr: "inherit",
});
const client = new Client({ name: "killed-client", version: "1.0.0" });
await client.connect(transport);
const opened = await client.callTool({ name: "open", arguments: { url } });
process.stdout.write(`${JSON.stringify({ server: transport.pid, opened: !opened.isError })}\n`);
// Held open until the test kills this process: a client that dies, not one that closes.
setInterval(() => {}, 60_000);
