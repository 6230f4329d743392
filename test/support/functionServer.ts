/**
 * Serves a web-standard function module (`GET`/`POST` taking a Request) on 127.0.0.1, the way the
 * serverless platform calls it, so tests reach it through real HTTP.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

type Handler = (request: Request) => Promise<Response>;

export async function serveFunction(
  module: Partial<Record<"GET" | "POST", Handler>>,
  path: string,
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const handler = module[req.method as "GET" | "POST"];
    if (!handler || new URL(req.url ?? "/", "http://x").pathname !== path) {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
    });
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
