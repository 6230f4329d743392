/**
 * Serves test/fixtures on 127.0.0.1 (and so also on "localhost", a different site: a frame from
 * one inside a page from the other is cross-site, which Chromium puts in its own process).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import type { Duplex } from "node:stream";
import { afterAll, beforeAll } from "vitest";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
};

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
