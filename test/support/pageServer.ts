/**
 * A saved page served on 127.0.0.1, for running a job offline: the file at `/`, and the other
 * files of its folder by name, so that its relative links (`item.html`, `style.css`) load
 * too. Used by `npm run offline` and the template test of one's own job (test/job/own/).
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, dirname, extname, join, resolve } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css",
  ".js": "text/javascript",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

export interface PageServer {
  /** `http://127.0.0.1:PORT/`: the page. */
  url: string;
  close(): Promise<void>;
}

export async function servePage(file: string): Promise<PageServer> {
  const page = resolve(file);
  const folder = dirname(page);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page").pathname;
    // One name of the page's own folder, or the page itself: nothing above or below it.
    const name = path === "/" ? basename(page) : decodeURIComponent(path.slice(1));
    if (name.includes("/") || name.includes("\\") || name.startsWith(".")) {
      return void res.writeHead(404).end();
    }
    readFile(join(folder, name)).then(
      (body) =>
        res
          .writeHead(200, { "content-type": TYPES[extname(name)] ?? "application/octet-stream" })
          .end(body),
      () => res.writeHead(404, { "content-type": "text/plain" }).end(`no ${name} beside the page`),
    );
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
