/**
 * The model kit served over HTTP on 127.0.0.1, for code in another process (the service as
 * `npm run service` runs it, a benchmark's child): msw answers only the fetches of the process
 * it runs in, so here a node:http server hands each request to the same handlers with msw's
 * `getResponse` and streams their answer back. Point a child at it with
 * `OPENAI_BASE_URL=<kit.url>` or a model's `baseURL`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getResponse, type RequestHandler } from "msw";
import { asModelRequest, type ModelRequest } from "./modelServer.js";

/**
 * The origin the kit's handlers are written for (openai.ts matches
 * `https://api.openai.com/v1/...`). Each request is matched as if it had been sent there, so
 * the handlers serve in-process tests and this server unchanged, with no baseURL of their own.
 */
const HANDLERS_ORIGIN = "https://api.openai.com";

/** Hop-by-hop and framing headers: they describe the connection to us, not the request. */
const CONNECTION_HEADERS = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
]);

export interface ModelKitServer {
  /** `http://127.0.0.1:PORT/v1`: a base URL for OPENAI_BASE_URL or a model's `baseURL`. */
  url: string;
  /** Answers the next requests with these handlers (in front of earlier ones). */
  use(...handlers: RequestHandler[]): void;
  /** Every answered request so far, oldest first, with the URL the handlers matched. */
  requests(): ModelRequest[];
  /** The requests whose URL contains `part`. */
  requestsTo(part: string): ModelRequest[];
  /** `METHOD URL` of each request no handler answered (each got a 501). */
  unhandled(): string[];
  /** Stops listening and drops open connections (a delayed answer's request sees its abort). */
  close(): Promise<void>;
}

export function serveModelKit(...defaults: RequestHandler[]): Promise<ModelKitServer> {
  return serveModelKitOn("127.0.0.1", 0, ...defaults);
}

/** The same kit on another loopback address (127.0.0.2, …) and port (0: a free one). */
export async function serveModelKitOn(
  host: string,
  port: number,
  ...defaults: RequestHandler[]
): Promise<ModelKitServer> {
  let handlers = [...defaults];
  const seen: ModelRequest[] = [];
  const refused: string[] = [];

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      // Failing after the head was sent: the caller sees a cut stream, not a hang.
      if (res.headersSent) res.destroy();
      else plain(res, 500, `the model kit failed: ${String(error)}`);
    });
  });

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A handler that waits (a slow model) learns that its caller went away.
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    const request = await asFetchRequest(req, gone.signal);
    const entry = await asModelRequest(request.clone());
    seen.push(entry);
    const response = await getResponse(handlers, request);
    // No answer, or msw's passthrough(): there is nowhere to pass to here.
    if (!response || response.headers.get("x-msw-intention") === "passthrough") {
      seen.splice(seen.indexOf(entry), 1);
      refused.push(`${request.method} ${request.url}`);
      return plain(
        res,
        501,
        `no model kit handler answers ${request.method} ${request.url} (as received: ${req.url})`,
      );
    }
    // HttpResponse.error(): a network error, which over HTTP is a dropped connection.
    if (response.type === "error") return void res.destroy();
    await sendStreaming(response, res, gone.signal);
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}/v1`,
    use: (...more) => {
      handlers = [...more, ...handlers];
    },
    requests: () => [...seen],
    requestsTo: (part) => seen.filter((r) => r.url.href.includes(part)),
    unhandled: () => [...refused],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The incoming request as the handlers expect it: their origin, our path, method, headers, body. */
async function asFetchRequest(req: IncomingMessage, signal: AbortSignal): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || CONNECTION_HEADERS.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  // Model requests are small JSON: read whole, the body is simple to replay to every handler.
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const method = req.method ?? "GET";
  return new Request(new URL(req.url ?? "/", HANDLERS_ORIGIN), {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : body,
    signal,
  });
}

/** Status and headers at once, then each body chunk as it comes: server-sent events stay live. */
async function sendStreaming(
  response: Response,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (CONNECTION_HEADERS.has(name)) return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  res.writeHead(response.status, response.statusText, headers);
  // Without this the head waits in a buffer for the first chunk, which a slow stream delays.
  res.flushHeaders();
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  // The caller left: the handler's stream is cancelled, not read to its end.
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
    }
    res.end();
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${text}\n`);
}
