/**
 * One local server for every page the snapshot bench opens: test/fixtures under /fixtures/ and
 * the generated shop pages under /generated/. It listens on 127.0.0.1 only; "localhost" reaches
 * the same server as another site, which is how fixtures get a cross-site frame.
 */
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { productImage, reviewsFrame, shopPage } from "./pages.js";

export const FIXTURES_DIR = join(import.meta.dirname, "..", "..", "test", "fixtures");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".svg": "image/svg+xml",
};

export interface BenchServer {
  /** http://127.0.0.1:port */
  origin: string;
  /** http://localhost:port: the same server, another site. */
  otherSite: string;
  close(): Promise<void>;
}

/**
 * Fixture pages a test opens itself; frame documents and dialog/popup pages are left out, and
 * the outline fixtures that test settling (the reference does not settle in extract()).
 */
export async function topLevelFixtures(): Promise<string[]> {
  const names = await readdir(FIXTURES_DIR);
  const outline = ["form", "frames-outer", "shadow-slots", "twenty-frames"].map(
    (n) => `outline/${n}.html`,
  );
  return names
    .concat(outline)
    .filter(
      (n) =>
        n.endsWith(".html") &&
        !n.includes("child") &&
        !n.includes("frame-") &&
        n !== "alert.html" &&
        n !== "popup.html",
    )
    .sort();
}

export async function startBenchServer(): Promise<BenchServer> {
  // A 50k page takes a while to build; both engines load it, so build it once.
  const shops = new Map<number, string>();
  const generated = (path: string): string | undefined => {
    const shop = /^\/shop-(\d+)\.html$/.exec(path);
    if (shop) {
      const n = Number(shop[1]);
      if (!shops.has(n)) shops.set(n, shopPage(n));
      return shops.get(n);
    }
    if (path === "/frame.html") return reviewsFrame();
    const img = /^\/img\/p(\d+)\.svg$/.exec(path);
    return img ? productImage(Number(img[1])) : undefined;
  };

  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    if (path.includes("..")) return void res.writeHead(400).end();
    const type = TYPES[extname(path)] ?? "application/octet-stream";
    if (path.startsWith("/generated/")) {
      const body = generated(path.slice("/generated".length));
      if (body === undefined) return void res.writeHead(404).end("not found");
      return void res.writeHead(200, { "content-type": type }).end(body);
    }
    if (path.startsWith("/fixtures/")) {
      try {
        const body = await readFile(join(FIXTURES_DIR, path.slice("/fixtures/".length)));
        return void res.writeHead(200, { "content-type": type }).end(body);
      } catch {
        // falls through to 404
      }
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    otherSite: `http://localhost:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
