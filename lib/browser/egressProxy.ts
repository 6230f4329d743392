/**
 * The egress guard: an HTTP proxy on 127.0.0.1 that every request of a browser goes through
 * (documents, frames, popups, images, scripts, fetch/XHR, WebSockets, workers: Chromium sends
 * them all to its proxy, the loopback too with `<-loopback>`). Each host is judged once by the
 * address rule (lib/net/addressRule.ts), and the proxy connects to the very address it judged,
 * so a name cannot resolve to something else between the check and the connection. A refused
 * request gets 403 and never leaves the machine.
 */
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type AddressRule, hostJudge, type Lookup } from "../net/addressRule.js";

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`, for Chromium's `--proxy-server`. */
  url: string;
  /** Lets the process exit while the proxy still serves a browser left running (keepAlive). */
  unref(): void;
  close(): Promise<void>;
}

export interface EgressOptions {
  rule: AddressRule;
  /** Told of each refused request (once per URL or tunnel). */
  onRefused?: (target: string, reason: string) => void;
  /** How host names are resolved (the system's by default). */
  lookup?: Lookup;
}

/** The longest the proxy waits to connect to a site (Chromium's own is longer). */
const CONNECT_TIMEOUT_MS = 15_000;
/** Headers for the proxy, not the site. */
const HOP_BY_HOP = ["proxy-connection", "proxy-authorization", "connection", "keep-alive"];

export async function startEgressProxy(options: EgressOptions): Promise<EgressProxy> {
  const judge = hostJudge(options.rule, options.lookup);
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  const agent = new Agent({ keepAlive: true, timeout: CONNECT_TIMEOUT_MS });

  /** The address to connect to, or why not (a refusal is told to onRefused). */
  const resolve = async (
    host: string,
    target: string,
  ): Promise<string | { refused: string } | { unresolved: true }> => {
    const verdict = await judge(host);
    if ("refused" in verdict) {
      options.onRefused?.(target, verdict.refused);
      return verdict;
    }
    return verdict.addresses[0] ?? { unresolved: true };
  };

  const server = createServer(async (req, res) => {
    // A plain-HTTP request in absolute form: http://host:port/path.
    const target = URL.parse(req.url ?? "");
    if (target?.protocol !== "http:") return void res.writeHead(400).end();
    const to = await resolve(target.hostname, target.href);
    // A name that resolves to nothing fails as it would without us, not as a refusal.
    if (typeof to !== "string" && "unresolved" in to) {
      return void res.writeHead(502, { [EGRESS_FAILURE]: "NAME_NOT_RESOLVED" }).end();
    }
    if (typeof to !== "string") {
      return void res
        .writeHead(403, { "content-type": "text/plain" })
        .end(`Refused by the egress rule: ${to.refused}`);
    }
    const upstream = httpRequest({
      agent,
      host: to,
      port: target.port || 80,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers: forwarded(req.headers),
      setHost: false,
      timeout: CONNECT_TIMEOUT_MS,
    });
    upstream.on("response", (answer: IncomingMessage) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("timeout", () => upstream.destroy(new Error("no answer in time")));
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      // Chromium's name for what failed, so the page's goto fails as it would without us.
      if (!res.headersSent) res.writeHead(502, { [EGRESS_FAILURE]: netCodeOf(error) }).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });

  // HTTPS, wss:// and ws:// go through a tunnel: CONNECT host:port.
  server.on("connect", async (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on("error", () => client.destroy());
    const [host, port] = splitHostPort(req.url ?? "");
    const to = await resolve(host, `${host}:${port}`);
    if (typeof to !== "string") {
      const status = "unresolved" in to ? "502 Bad Gateway" : "403 Forbidden";
      return void client.end(`HTTP/1.1 ${status}\r\n\r\n`);
    }
    track(
      bridge(client, to, port, head, () =>
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n"),
      ),
    );
  });

  // A WebSocket upgrade sent in absolute form (ws:// without a tunnel).
  server.on("upgrade", async (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on("error", () => client.destroy());
    const target = URL.parse(req.url ?? "");
    if (!target) return void client.destroy();
    const to = await resolve(target.hostname, target.href);
    if (typeof to !== "string") {
      const status = "unresolved" in to ? "502 Bad Gateway" : "403 Forbidden";
      return void client.end(`HTTP/1.1 ${status}\r\n\r\n`);
    }
    const headers = Object.entries(forwarded(req.headers, false))
      .map(([k, v]) => `${k}: ${v}`)
      .join("\r\n");
    const request = `${req.method} ${target.pathname}${target.search} HTTP/1.1\r\n${headers}\r\n\r\n`;
    track(bridge(client, to, Number(target.port || 80), head, (site) => site.write(request)));
  });

  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    unref: () => server.unref(),
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        agent.destroy();
        server.close(() => done());
      }),
  };
}

/**
 * The header of the guard's 502 for a site it could not reach: Chromium's error name
 * (`CONNECTION_REFUSED`), which Page.goto turns back into the failure a direct load would give.
 */
export const EGRESS_FAILURE = "x-wayfarer-egress-failure";

/**
 * A response the egress guard made because it could not reach the site fails as the direct
 * load would have, with Chromium's own code: `goto` reads the same under the guard as without.
 */
export function unlessUnreachable<
  R extends { headers(): Record<string, string>; status(): number; url(): string },
>(response: R | null): R | null {
  const code = response?.headers()[EGRESS_FAILURE];
  if (code && response?.status() === 502) throw new Error(`net::ERR_${code} at ${response.url()}`);
  return response;
}

const NET_CODES: Record<string, string> = {
  ECONNREFUSED: "CONNECTION_REFUSED",
  ECONNRESET: "CONNECTION_RESET",
  EHOSTUNREACH: "ADDRESS_UNREACHABLE",
  ENETUNREACH: "ADDRESS_UNREACHABLE",
  ENOTFOUND: "NAME_NOT_RESOLVED",
  ETIMEDOUT: "TIMED_OUT",
};

function netCodeOf(error: NodeJS.ErrnoException): string {
  if (error.message === "no answer in time") return "TIMED_OUT";
  return NET_CODES[error.code ?? ""] ?? "CONNECTION_FAILED";
}

/**
 * Connects to the judged address, lets `opening` write what goes first, sends on what the client
 * already sent (`head`), then pipes both ways; either side's end ends the other.
 */
function bridge(
  client: Duplex,
  address: string,
  port: number,
  head: Buffer,
  opening: (site: Socket) => void,
): Socket {
  const site = tunnel(address, port, () => {
    opening(site);
    if (head.length) site.write(head);
    site.pipe(client);
    client.pipe(site);
  });
  site.on("error", () => client.destroy());
  client.on("close", () => site.destroy());
  return site;
}

/** A connection to the judged address, bounded in time. */
function tunnel(address: string, port: number, ready: () => void): Socket {
  const socket = connect({ host: address, port }, ready);
  socket.setTimeout(CONNECT_TIMEOUT_MS, () => {
    if (socket.connecting) socket.destroy(new Error("no connection in time"));
  });
  return socket;
}

/** `host:port` of a CONNECT (an IPv6 host in brackets). */
function splitHostPort(authority: string): [string, number] {
  const m = authority.match(/^\[?([^\]]*?)\]?:(\d+)$/);
  return m ? [m[1]!, Number(m[2])] : [authority, 443];
}

function forwarded(headers: IncomingHttpHeaders, dropConnection = true): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (HOP_BY_HOP.includes(name) && (dropConnection || name.startsWith("proxy-"))) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
