/**
 * The quick-start demo: opens a page in a real Chromium and prints its title and URL.
 *   npm start                 a built-in page, served on 127.0.0.1 (works offline)
 *   npm start -- <url>        any page you choose
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describePage } from "../lib/job/describePage.js";

const DEMO_PAGE = `<!doctype html><html><head><title>Wayfarer demo</title></head>
<body><h1>Hello from Wayfarer</h1></body></html>`;

async function main(): Promise<void> {
  const given = process.argv[2];
  const server = given ? undefined : await serveDemoPage();
  try {
    console.log(JSON.stringify(await describePage(given ?? server!.url)));
  } finally {
    await server?.close();
  }
}

async function serveDemoPage(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(DEMO_PAGE),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
});
