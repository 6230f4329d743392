/**
 * `npm run bench:links`: MCP `open` and `read` on a page of one paragraph and N links (2,000 to
 * 16,000), against the library's own `extract()` of the same page (the same capture without
 * the ids' identities) in the same run: whether reading a page stays linear in its links.
 * Before this bench each link's identity read its parent's whole text (the list of all links):
 * 16,000 links took 10.8 s to read.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Client } from "../../lib/index.js";
import { Logger } from "../../lib/log.js";
import { localHost } from "../../lib/mcp/localHost.js";
import { buildMcpServer } from "../../lib/mcp/server.js";
import type { V3Options } from "../../lib/options.js";

const SIZES = (process.env.BENCH_LINKS ?? "2000,4000,8000,16000").split(",").map(Number);
const ARGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync"];
const pageOf = (n: number) =>
  `<p>One paragraph.</p>${Array.from({ length: n }, (_, i) => `<a href="/l${i}">Link number ${i}</a> `).join("")}`;

const site = createServer((req, res) => {
  const n = Number(req.url?.slice(1));
  res.writeHead(200, { "content-type": "text/html" }).end(Number.isFinite(n) ? pageOf(n) : "");
});
await new Promise<void>((done) => site.listen(0, "127.0.0.1", () => done()));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const logger = new Logger({ verbose: 0, disablePino: true, logger: () => {} });
const options = {
  env: "LOCAL",
  verbose: 0,
  disablePino: true,
  localBrowserLaunchOptions: { args: ARGS },
};
const host = localHost({ options: options as V3Options, logger });
const server = await buildMcpServer(host, {
  variables: {},
  toolTimeoutMs: 120_000,
  agentMaxSteps: 20,
  logger,
});
const mcp = new McpClient({ name: "bench-links", version: "1" });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
await mcp.connect(clientSide);
const library = new Client(options as V3Options);
await library.init();

const ms = async (work: () => Promise<unknown>) => {
  const t0 = performance.now();
  await work();
  return Math.round(performance.now() - t0);
};
console.log("links    MCP open   MCP read   read part 2   library extract() (same page)");
try {
  for (const n of SIZES) {
    const url = `${base}/${n}`;
    const open = await ms(() => mcp.callTool({ name: "open", arguments: { url } }));
    const read = await ms(() => mcp.callTool({ name: "read", arguments: { fresh: true } }));
    const part = await ms(() => mcp.callTool({ name: "read", arguments: { part: 2 } }));
    await library.context.activePage()!.goto(url);
    const extract = await ms(() => library.extract());
    console.log(
      `${String(n).padStart(6)} ${`${open} ms`.padStart(10)} ${`${read} ms`.padStart(10)} ${`${part} ms`.padStart(13)} ${`${extract} ms`.padStart(12)}`,
    );
  }
} finally {
  await library.close();
  await mcp.close();
  await server.close();
  await host.close();
  site.close();
}
