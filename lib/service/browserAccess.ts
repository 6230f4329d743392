/**
 * Browser access for remote clients: `connectUrl` is a WebSocket of this service that carries
 * CDP to a session's browser, opened with a short-lived token minted for that session (never
 * the API key: a v3 client opens the URL with no headers). An open connection lasts until the
 * session ends; the browser's own endpoint is never handed out. What clients send keeps the
 * session from being idle, and the last one leaving may end it (Sessions.clientClosed).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { canonicalTarget } from "./requestTarget.js";
import type { Sessions } from "./sessions.js";
import type { Cluster } from "./shared/cluster.js";

/** How long a minted token may be used to open a connection. */
const TOKEN_TTL_MS = 10 * 60_000;
/** A client that answers no ping for this long is gone (its machine died, its network too). */
const HEARTBEAT_MS = 30_000;
const CDP_PATH = /^\/v1\/sessions\/([^/]+)\/cdp$/;

export class BrowserAccess {
  private readonly tokens = new Map<string, { sessionId: string; expires: number }>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 * 1024 });

  constructor(
    private readonly sessions: Sessions,
    /** Shared mode: another instance's session is joined to its owner's proxy. */
    private readonly cluster?: Cluster,
  ) {}

  /** The path and token of a new connection URL for the session (the caller adds the base). */
  mint(sessionId: string): string {
    const now = Date.now();
    for (const [t, v] of this.tokens) if (v.expires < now) this.tokens.delete(t);
    const token = randomBytes(32).toString("base64url");
    this.tokens.set(token, { sessionId, expires: now + TOKEN_TTL_MS });
    return `/v1/sessions/${encodeURIComponent(sessionId)}/cdp?token=${token}`;
  }

  /** Serves the CDP WebSockets of `server`'s upgrade requests. */
  attach(server: Server): void {
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Node takes its own error listener off an upgraded socket: a reset must not end us.
      socket.on("error", () => socket.destroy());
      this.upgrade(request, socket, head).catch(() => {
        socket.end("HTTP/1.1 500 Internal Server Error\r\nconnection: close\r\n\r\n");
      });
    });
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // The spelling the HTTP routes get: one canonical target, forwarded as such in shared mode.
    const target = canonicalTarget(request.url ?? "");
    if ("refused" in target) {
      socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
      return;
    }
    request.url = `${target.path}${target.query}`;
    const url = URL.parse(request.url, "http://service");
    const id = decoded(url?.pathname.match(CDP_PATH)?.[1]);
    if (id && (await this.cluster?.routeUpgrade(id, request, socket, head))) return;
    const token = url?.searchParams.get("token") ?? "";
    const grant = this.tokens.get(token);
    const session = id && grant ? this.sessions.find(id) : undefined;
    if (!session || !grant || grant.sessionId !== session.id || grant.expires < Date.now()) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n");
      return;
    }
    const endpoint = session.cdpEndpoint;
    if (!endpoint) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (client) => {
      const browser = new WebSocket(endpoint, { perMessageDeflate: false });
      const pending: { data: Buffer; binary: boolean }[] = [];
      this.sessions.clientOpened(session);
      client.on("message", (data: Buffer, binary) => {
        // A client driving the browser over CDP is using the session.
        session.touch();
        if (browser.readyState === WebSocket.OPEN) browser.send(data, { binary });
        else pending.push({ data, binary });
      });
      browser.on("open", () => {
        for (const m of pending.splice(0)) browser.send(m.data, { binary: m.binary });
      });
      browser.on("message", (data: Buffer, binary) => client.send(data, { binary }));
      let closed = false;
      const closeBoth = () => {
        client.terminate();
        browser.terminate();
        if (closed) return;
        closed = true;
        this.sessions.clientClosed(session);
      };
      client.on("close", closeBoth);
      browser.on("close", closeBoth);
      client.on("error", closeBoth);
      browser.on("error", closeBoth);
      session.onEnd(closeBoth);
      let alive = true;
      client.on("pong", () => {
        alive = true;
      });
      const heartbeat = setInterval(() => {
        if (!alive) return closeBoth();
        alive = false;
        client.ping();
      }, HEARTBEAT_MS);
      heartbeat.unref();
      client.on("close", () => clearInterval(heartbeat));
    });
  }
}

/** A path segment decoded; undefined for one that is not valid percent-encoding. */
function decoded(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
