/**
 * Serves test/fixtures on 127.0.0.1 (and so also on "localhost", a different site: a frame from
 * one inside a page from the other is cross-site, which Chromium puts in its own process).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import type { Duplex } from "node:stream";
import { afterAll, beforeAll } from "vitest";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
};

/** Bodies of /__delay by ?type=; `text` and `target` come from the query. */
const DELAYED: Record<string, { type: string; body: (text: string, target: string) => string }> = {
  json: { type: "application/json", body: (text) => JSON.stringify({ text }) },
  js: {
    type: "text/javascript",
    body: (text, target) =>
      `document.getElementById(${JSON.stringify(target)}).textContent = ${JSON.stringify(text)};`,
  },
  css: { type: "text/css", body: () => "p { margin: 0.5em 0; }" },
  img: {
    type: "image/svg+xml",
    body: () => '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>',
  },
  // Not a real font: the browser asks, waits and then drops it, which is all a test needs.
  font: { type: "font/woff2", body: () => "wOF2" },
};

/** When each /__delay response of a type was sent (ms since epoch), for tests to compare. */
export const delayedSent = new Map<string, number[]>();

function delayed(query: URLSearchParams, res: ServerResponse): void {
  const kind = DELAYED[query.get("type") ?? ""];
  if (!kind) return void res.writeHead(400).end("unknown type");
  const body = kind.body(query.get("text") ?? "", query.get("target") ?? "");
  setTimeout(
    () => {
      if (res.destroyed) return;
      res.writeHead(200, { "content-type": kind.type, "cache-control": "no-store" }).end(body);
      const type = query.get("type")!;
      delayedSent.set(type, [...(delayedSent.get(type) ?? []), Date.now()]);
    },
    Number(query.get("ms") ?? 500),
  );
}

export interface StaticServer {
  /** http://127.0.0.1:port */
  origin: string;
  /** http://localhost:port: same server, another site. */
  otherSite: string;
  url(path: string): string;
  close(): Promise<void>;
}

const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export async function startStaticServer(): Promise<StaticServer> {
  const sockets = new Set<Duplex>();
  const server: Server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    // A request that never answers (a long-poll): it ends when the server closes.
    if (path === "/__hang") return;
    // A request that answers after ?ms= milliseconds.
    if (path === "/__slow") {
      const ms = Number(new URL(req.url ?? "/", "http://x").searchParams.get("ms") ?? 500);
      setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("slow answer"), ms);
      return;
    }
    // A response of a given type after ?ms= milliseconds (see delayed()).
    if (path === "/__delay") return delayed(new URL(req.url ?? "/", "http://x").searchParams, res);
    if (path.includes("..")) return void res.writeHead(400).end();
    try {
      const body = await readFile(join(FIXTURES, path === "/" ? "basic.html" : path));
      res
        .writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" })
        .end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  // Any websocket is accepted and then kept open, silent, until the server closes.
  server.on("upgrade", (req, socket) => {
    const key = String(req.headers["sec-websocket-key"] ?? "");
    const accept = createHash("sha1").update(`${key}${WEBSOCKET_GUID}`).digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    otherSite: `http://localhost:${port}`,
    url: (path) => `${origin}/${path.replace(/^\//, "")}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The fixture server for every test of a file: started before the first, closed after the last. */
export function useStaticServer(): Omit<StaticServer, "close"> {
  let server: StaticServer | undefined;
  beforeAll(async () => {
    server = await startStaticServer();
  });
  afterAll(() => server?.close());
  const live = () => {
    if (!server) throw new Error("the fixture server is used outside a test");
    return server;
  };
  return {
    get origin() {
      return live().origin;
    },
    get otherSite() {
      return live().otherSite;
    },
    url: (path) => live().url(path),
  };
}
