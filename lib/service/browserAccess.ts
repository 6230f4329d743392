/**
 * Browser access for remote clients: `connectUrl` is a WebSocket of this service that carries
 * CDP to a session's browser, opened with a short-lived token minted for that session (never
 * the API key: a v3 client opens the URL with no headers). The browser listens on no port: each
 * connection is a client of the session's CDP hub (its pipe), and every command it sends is
 * judged by the CDP policy first (lib/service/cdpPolicy.ts). What one client may hold of the
 * service is bounded: its message size, its connections, what waits for the pipe or for it.
 * What clients send keeps the session from being idle, and the last one that came by the
 * platform's `connectUrl` leaving may end it (Sessions.clientClosed).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import type { CdpMessage, HubClient } from "../browser/cdpHub.js";
import { type CdpScope, judgeCdpCommand } from "./cdpPolicy.js";
import { canonicalTarget } from "./requestTarget.js";
import type { Session } from "./session.js";
import type { Sessions } from "./sessions.js";
import type { Cluster } from "./shared/cluster.js";

/** What one connection may hold of the service, and why each number. */
export const CDP_LIMITS = {
  /**
   * The largest message a client may send. Playwright's injected script (~0.3 MB), a page's
   * worth of `Fetch.fulfillRequest` body and a `setInputFiles` buffer of a few MB fit; each
   * message is held whole, parsed and written again in this process, so what a connection can
   * make us hold is a few times this.
   */
  maxMessageBytes: 8 * 1024 * 1024,
  /** Open connections of one session at once (a v3 client, a Playwright of the user's, a spare). */
  maxConnectionsPerSession: 4,
  /** Connections one token may open: a reconnect or two, not a reusable key. */
  maxOpeningsPerToken: 4,
  /** How long a minted token may open connections. */
  tokenTtlMs: 10 * 60_000,
  /** What waits for the browser's pipe before this connection is read no further. */
  pipeHighWaterBytes: 4 * 1024 * 1024,
  /** What waits for a client that reads too slowly before it is cut off. */
  clientHighWaterBytes: 64 * 1024 * 1024,
  /** Commands a client may send before its connection to the browser is ready. */
  maxEarlyMessages: 256,
};

/** A client that answers no ping for this long is gone (its machine died, its network too). */
const HEARTBEAT_MS = 30_000;
const CDP_PATH = /^\/v1\/sessions\/([^/]+)\/cdp$/;

interface Grant {
  sessionId: string;
  expires: number;
  openings: number;
  /** Minted for the platform's `connectUrl`: the connection is its client's lifeline. */
  lifeline: boolean;
}

export class BrowserAccess {
  private readonly tokens = new Map<string, Grant>();
  private readonly connections = new Map<string, number>();
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: CDP_LIMITS.maxMessageBytes,
    perMessageDeflate: false,
  });

  constructor(
    private readonly sessions: Sessions,
    /** Shared mode: another instance's session is joined to its owner's proxy. */
    private readonly cluster?: Cluster,
  ) {}

  /** CDP connections open now, every session's (the service's metrics). */
  get openConnections(): number {
    let open = 0;
    for (const count of this.connections.values()) open += count;
    return open;
  }

  /**
   * The path and token of a new connection URL for the session (the caller adds the base).
   * `lifeline`: the platform's `connectUrl`, which a v3 client in BROWSERBASE mode drives the
   * session by: when its last such connection goes, the session without keepAlive ends, as on
   * the platform. A `cdpUrl` of `/start` or `/debug` is a look in: it ends nothing.
   */
  mint(sessionId: string, lifeline = false): string {
    const now = Date.now();
    for (const [t, v] of this.tokens) if (v.expires < now) this.tokens.delete(t);
    const token = randomBytes(32).toString("base64url");
    this.tokens.set(token, {
      sessionId,
      expires: now + CDP_LIMITS.tokenTtlMs,
      openings: 0,
      lifeline,
    });
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
    if ("refused" in target) return refuse(socket, "400 Bad Request");
    request.url = `${target.path}${target.query}`;
    const url = URL.parse(request.url, "http://service");
    const id = decoded(url?.pathname.match(CDP_PATH)?.[1]);
    if (id && (await this.cluster?.routeUpgrade(id, request, socket, head))) return;
    const token = url?.searchParams.get("token") ?? "";
    const grant = this.tokens.get(token);
    const session = id && grant ? this.sessions.find(id) : undefined;
    if (!session || !grant || grant.sessionId !== session.id || grant.expires < Date.now()) {
      return refuse(socket, "401 Unauthorized");
    }
    if (grant.openings >= CDP_LIMITS.maxOpeningsPerToken) {
      this.tokens.delete(token);
      return refuse(
        socket,
        "401 Unauthorized",
        "this connection URL has been used up: ask for a new one",
      );
    }
    if ((this.connections.get(session.id) ?? 0) >= CDP_LIMITS.maxConnectionsPerSession) {
      return refuse(
        socket,
        "429 Too Many Requests",
        `the session has ${CDP_LIMITS.maxConnectionsPerSession} CDP connections open already: close one`,
      );
    }
    const hub = session.cdpHub;
    const folder = session.browserFolder;
    if (!hub || !folder) return refuse(socket, "503 Service Unavailable");
    grant.openings++;
    this.wss.handleUpgrade(request, socket, head, (client) =>
      this.serve(
        client,
        session,
        hub,
        { downloadsDir: join(folder, "downloads"), filesDir: join(folder, "downloads") },
        grant.lifeline,
      ),
    );
  }

  /** One client's connection, joined to the session's hub until either side goes. */
  private serve(
    client: WebSocket,
    session: Session,
    hub: NonNullable<Session["cdpHub"]>,
    scope: CdpScope,
    lifeline: boolean,
  ): void {
    this.connections.set(session.id, (this.connections.get(session.id) ?? 0) + 1);
    this.sessions.clientOpened(session, lifeline);
    let browser: HubClient | undefined;
    const early: CdpMessage[] = [];
    let closed = false;
    const closeBoth = (code = 1000, reason = "") => {
      if (closed) return;
      closed = true;
      stopWaiting?.();
      browser?.close();
      if (client.readyState === WebSocket.OPEN) client.close(code, reason);
      else client.terminate();
      const left = (this.connections.get(session.id) ?? 1) - 1;
      if (left > 0) this.connections.set(session.id, left);
      else this.connections.delete(session.id);
      this.sessions.clientClosed(session, lifeline);
    };
    const reply = (message: CdpMessage) => {
      if (closed) return;
      if (client.bufferedAmount > CDP_LIMITS.clientHighWaterBytes) {
        return closeBoth(1008, "the client reads too slowly: messages piled up past 64 MB");
      }
      client.send(JSON.stringify(message));
    };
    let stopWaiting: (() => void) | undefined;
    const toBrowser = (message: CdpMessage) => {
      browser?.send(message);
      if (stopWaiting || hub.pendingBytes <= CDP_LIMITS.pipeHighWaterBytes) return;
      // The browser takes less than this client sends: read no more of it until the pipe drains.
      client.pause();
      stopWaiting = hub.onDrain(() => {
        stopWaiting?.();
        stopWaiting = undefined;
        if (!closed) client.resume();
      });
    };

    client.on("message", (data: Buffer) => {
      // A client driving the browser over CDP is using the session.
      session.touch();
      const message = parsed(data);
      if (!message) {
        return reply({ error: { code: -32700, message: "Message must be a JSON object" } });
      }
      const verdict = judgeCdpCommand(String(message.method), message.params, scope);
      if (!verdict.allow) {
        return reply({
          id: message.id,
          error: { code: -32000, message: verdict.message },
          ...(message.sessionId ? { sessionId: message.sessionId } : {}),
        });
      }
      if (verdict.params) message.params = verdict.params;
      const pages = hub.pages;
      if (message.method === "Target.createTarget" && pages && pages.open >= pages.max) {
        // Refused, not closed once made: Chromium never answers a createTarget whose target
        // was closed while it was being made.
        return reply({
          id: message.id,
          error: {
            code: -32000,
            message: `Wayfarer refuses Target.createTarget: ${pages.open} pages are open, the most this session may have (WAYFARER_MAX_PAGES); close one first`,
          },
          ...(message.sessionId ? { sessionId: message.sessionId } : {}),
        });
      }
      if (browser) return toBrowser(message);
      if (early.push(message) > CDP_LIMITS.maxEarlyMessages) {
        closeBoth(1008, "too many commands before the browser was ready");
      }
    });
    client.on("close", () => closeBoth());
    client.on("error", () => closeBoth());
    session.onEnd(() => closeBoth(1001, "the session ended"));

    hub
      .connect({
        receive: reply,
        closed: (reason) => closeBoth(1011, reason),
      })
      .then((opened) => {
        if (closed) return opened.close();
        browser = opened;
        for (const message of early.splice(0)) toBrowser(message);
      })
      .catch(() => closeBoth(1011, "the browser did not take the connection"));

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
  }
}

/** A client's message as an object, or undefined for anything else. */
function parsed(data: Buffer): CdpMessage | undefined {
  try {
    const value: unknown = JSON.parse(data.toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as CdpMessage)
      : undefined;
  } catch {
    return undefined;
  }
}

function refuse(socket: Duplex, status: string, why?: string): void {
  const body = why ? `${why}\n` : "";
  socket.end(
    `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
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
