/**
 * The shared corpus of saved real-world pages, served from 127.0.0.1, and a proxy that refuses
 * every request at once: with the browser pointed at it (and every host name but the loopback
 * mapped to "not found"), a page's outside scripts, styles, images and frames fail immediately
 * instead of waiting on a network this machine does not have. The corpus is data: it is read
 * from ../shared/corpus/pages (or WAYFARER_CORPUS), never copied into the repository.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join } from "node:path";

export const CORPUS_DIR =
  process.env.WAYFARER_CORPUS ??
  join(import.meta.dirname, "..", "..", "..", "shared", "corpus", "pages");

export interface CorpusServer {
  /** Page file names, sorted. */
  pages: string[];
  url(page: string): string;
  /** Chromium switches that keep the browser off every network but the loopback. */
  browserArgs: string[];
  close(): Promise<void>;
}

/** Undefined when the corpus folder is absent (a fork without shared/). */
export async function startCorpusServer(): Promise<CorpusServer | undefined> {
  if (!existsSync(CORPUS_DIR)) return undefined;
  const pages = (await readdir(CORPUS_DIR)).filter((n) => n.endsWith(".html")).sort();
  const server = createServer(async (req, res) => {
    try {
      const name = basename(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
      if (!pages.includes(name)) return void res.writeHead(404).end();
      const body = await readFile(join(CORPUS_DIR, name));
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
    } catch {
      // A page's own odd relative URL (a stray "%"), an unreadable file: not found, not a crash.
      if (!res.headersSent) res.writeHead(404).end();
    }
  });
  const refusing = createServer((_req, res) => void res.writeHead(502).end());
  refusing.on("connect", (_req, socket) => socket.destroy());
  const listen = (s: typeof server) =>
    new Promise<number>((resolve) =>
      s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)),
    );
  const [port, proxyPort] = await Promise.all([listen(server), listen(refusing)]);
  const stop = (s: typeof server) =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });
  return {
    pages,
    url: (page) => `http://127.0.0.1:${port}/${encodeURIComponent(page)}`,
    browserArgs: [
      `--proxy-server=http://127.0.0.1:${proxyPort}`,
      "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
    ],
    close: async () => {
      await Promise.all([stop(server), stop(refusing)]);
    },
  };
}
