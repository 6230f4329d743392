/**
 * Forwarding a request to the instance that owns its session: the method, path, headers and
 * body go as they came (the body streamed, or the bytes given when it was already read), and
 * the owner's answer comes back as it is written, so SSE frames pass one by one. A caller who
 * goes away cuts the forwarded request, which stops the operation on the owner as if the
 * caller had been connected to it. Connections to the other instances are kept alive.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import { readableMessage } from "../../readableError.js";
import { frameText, framingOf } from "../answers.js";
import { noteForwarded } from "../metrics.js";

/** How long a connection to another instance may take before it counts as unreachable. */
const CONNECT_MS = 2_000;

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 512 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 512 }),
};

/** Headers that belong to one connection, not to the request (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

export type ForwardOutcome =
  /** The owner answered and the answer was relayed (or cut when either side went away). */
  | "relayed"
  /** The owner answered 503 and `passOn503` asked to try elsewhere: nothing was written. */
  | "full"
  /** Nothing listens at the owner's address: it is gone. Nothing was written. */
  | "refused"
  /** No connection, or no answer head: nothing was written. */
  | "unreachable";

export interface ForwardRequest {
  /** The owner's internal base URL. */
  base: string;
  request: IncomingMessage;
  response: ServerResponse;
  /** Set when the body was read already (it is sent instead of the request's stream). */
  body?: Buffer;
  headers?: Record<string, string>;
  passOn503?: boolean;
  /** Called before anything is written to `response` (the framework lets go of it). */
  claim?: () => void;
  /** Aborted when the owner is found gone while this waits (its heartbeat stopped). */
  signal?: AbortSignal;
}

/**
 * The owner's URL for the request: its base with the request's path and query, nothing else. A
 * request-target such as `//elsewhere/…` never chooses the host.
 */
export function targetOf(base: string, requestUrl: string | undefined): URL {
  const target = new URL(base);
  const asked = new URL(requestUrl ?? "/", "http://any.invalid");
  target.pathname = asked.pathname;
  target.search = asked.search;
  return target;
}

export function forward(f: ForwardRequest): Promise<ForwardOutcome> {
  const { request, response } = f;
  // The caller went away while the owner was looked up: nothing to forward.
  if (response.destroyed || (!f.body && request.destroyed)) {
    f.claim?.();
    request.destroy();
    return Promise.resolve("relayed");
  }
  const target = targetOf(f.base, request.url);
  const secure = target.protocol === "https:";
  const headers = { ...endToEnd(request.headers), ...f.headers };
  if (f.body) headers["content-length"] = String(f.body.length);
  // A chunked body is sent chunked again, whatever the method (Node frames GET bodies only so).
  else if (/chunked/i.test(String(request.headers["transfer-encoding"] ?? ""))) {
    headers["transfer-encoding"] = "chunked";
  }
  return new Promise<ForwardOutcome>((resolve) => {
    const upstream = (secure ? https : http).request(target, {
      method: request.method,
      headers,
      agent: secure ? agents.https : agents.http,
      // The certificate is the owner's, whatever Host the caller sent.
      ...(secure ? { servername: target.hostname } : {}),
    });
    const stop = () => upstream.destroy(new Error("the owner is gone"));
    f.signal?.addEventListener("abort", stop, { once: true });
    upstream.once("close", () => f.signal?.removeEventListener("abort", stop));
    request.once("aborted", () => upstream.destroy());
    let settled = false;
    /** The owner's answer is a stream: a cut ends it with an error frame. */
    let stream = false;
    const settle = (outcome: ForwardOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    upstream.on("socket", (socket) => {
      if (!(socket as { connecting?: boolean }).connecting) return;
      const timer = setTimeout(() => upstream.destroy(new Error("connect timeout")), CONNECT_MS);
      socket.once("connect", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    });
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      if (!response.headersSent) settle(error.code === "ECONNREFUSED" ? "refused" : "unreachable");
      else cut(f, stream, error);
    });
    // The caller went away: the owner's operation stops with the forwarded request.
    response.on("close", () => {
      if (!response.writableFinished) upstream.destroy();
    });
    upstream.on("response", (answer) => {
      const status = answer.statusCode ?? 502;
      if (status === 503 && f.passOn503) {
        answer.resume();
        settle("full");
        return;
      }
      f.claim?.();
      // The owner counts the request in its metrics; this instance, only that it relayed it.
      noteForwarded(request);
      response.writeHead(status, endToEnd(answer.headers));
      response.flushHeaders();
      answer.pipe(response);
      stream = String(answer.headers["content-type"]).startsWith("text/event-stream");
      answer.on("aborted", () => cut(f, stream, new Error("the owner's answer stopped")));
      answer.on("error", (error) => cut(f, stream, error));
      settle("relayed");
    });
    if (f.body) upstream.end(f.body);
    else request.pipe(upstream);
  });
}

/**
 * The owner went away mid-answer: a stream gets a last error frame, so its reader is told, not
 * left waiting; any other answer is cut.
 */
function cut({ request, response }: ForwardRequest, stream: boolean, cause: Error): void {
  if (response.writableEnded) return;
  if (stream) {
    const error = `The instance that holds this session stopped while answering: ${readableMessage(cause)}`;
    const frame = { type: "system", data: { status: "error", error } } as const;
    response.end(frameText(frame, framingOf(request.headers)));
    return;
  }
  response.destroy();
}

/**
 * A WebSocket upgrade (the CDP proxy) forwarded to the owner: once it switches protocols, the
 * two sockets are joined byte for byte (no frame is parsed here). Refusals come back as they are.
 */
export function forwardUpgrade(
  base: string,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<ForwardOutcome> {
  const target = targetOf(base, request.url);
  const secure = target.protocol === "https:";
  return new Promise((resolve) => {
    const upstream = (secure ? https : http).request(target, {
      method: "GET",
      headers: request.headers,
      agent: false,
      ...(secure ? { servername: target.hostname } : {}),
    });
    const timer = setTimeout(() => upstream.destroy(new Error("connect timeout")), CONNECT_MS);
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code === "ECONNREFUSED" ? "refused" : "unreachable");
    });
    socket.on("error", () => upstream.destroy());
    upstream.on("response", (answer) => {
      clearTimeout(timer);
      // Refused by the owner (a bad token, an ended session): its status, and the connection ends.
      socket.end(
        `HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ""}\r\nconnection: close\r\n\r\n`,
      );
      answer.resume();
      resolve("relayed");
    });
    upstream.on("upgrade", (answer, owner, ownerHead) => {
      clearTimeout(timer);
      socket.write(statusBlock(answer, 101));
      if (ownerHead.length) socket.write(ownerHead);
      if (head.length) owner.write(head);
      owner.pipe(socket);
      socket.pipe(owner);
      const close = () => {
        owner.destroy();
        socket.destroy();
      };
      owner.on("close", close);
      socket.on("close", close);
      owner.on("error", close);
      resolve("relayed");
    });
    upstream.end();
  });
}

/**
 * Whether the instance at `base` is up: it answers `/healthz` (true), its port refuses (false:
 * no process listens there), or neither within the wait (undefined: a network that failed). A
 * process being killed may still complete a connection (its listening socket goes last), so
 * only an answer counts as up, and a connection that is cut is asked again, briefly.
 */
export async function listening(base: string): Promise<boolean | undefined> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const answer = await healthOf(base);
    if (answer !== "cut") return answer;
    await new Promise((r) => setTimeout(r, 250));
  }
  return undefined;
}

function healthOf(base: string): Promise<boolean | undefined | "cut"> {
  const url = new URL("/healthz", base);
  return new Promise((resolve) => {
    const probe = (url.protocol === "https:" ? https : http).get(url, {
      agent: false,
      timeout: CONNECT_MS,
      ...(url.protocol === "https:" ? { servername: url.hostname } : {}),
    });
    probe.once("response", (answer) => {
      answer.resume();
      probe.destroy();
      resolve(true);
    });
    probe.once("timeout", () => probe.destroy(new Error("timeout")));
    probe.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") resolve(false);
      else if (error.message === "timeout") resolve(undefined);
      else resolve("cut");
    });
  });
}

function statusBlock(answer: IncomingMessage, status: number): string {
  const lines = [`HTTP/1.1 ${status} ${answer.statusMessage ?? ""}`];
  for (let i = 0; i < answer.rawHeaders.length; i += 2) {
    lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
  }
  return `${lines.join("\r\n")}\r\n\r\n`;
}
