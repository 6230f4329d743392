/**
 * The model provider, mocked at its HTTP boundary with msw: every request a model call makes is
 * answered by a handler of the test (see openai.ts, anthropic.ts) and recorded, so a test can
 * read what each request carried. A request no handler answers fails the test (unless it goes to
 * this machine, like the browser's CDP socket): nothing reaches the network.
 */
import { HttpResponse, http, type JsonBodyType, type RequestHandler } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface ModelRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The JSON body (undefined when there is none). */
  body: Record<string, unknown>;
}

export interface ModelServer {
  /** Answers the next requests with these handlers (added in front of earlier ones). */
  use(...handlers: RequestHandler[]): void;
  /** Every request made so far in this test, oldest first. */
  requests(): ModelRequest[];
  /** The requests whose URL contains `part`. */
  requestsTo(part: string): ModelRequest[];
}

/** An msw server for every test of the file; handlers and records are reset after each test. */
export function useModelServer(...defaults: RequestHandler[]): ModelServer {
  const server = setupServer(...defaults);
  const seen: ModelRequest[] = [];
  const unhandled: string[] = [];
  // Every request is recorded as it starts; those no handler answers (the browser's own CDP
  // socket on this machine) are taken out again.
  const ids = new Map<ModelRequest, string>();
  server.events.on("request:start", async ({ request, requestId }) => {
    const entry: ModelRequest = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: {},
    };
    seen.push(entry);
    ids.set(entry, requestId);
    const text = await request.clone().text();
    try {
      entry.body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      entry.body = { raw: text };
    }
  });
  server.events.on("request:unhandled", ({ requestId }) => {
    const i = seen.findIndex((e) => ids.get(e) === requestId);
    if (i !== -1) seen.splice(i, 1);
  });
  beforeAll(() =>
    server.listen({
      // The browser's CDP socket and the fixture servers live on this machine: they pass. Any
      // other request no handler answers fails the test.
      onUnhandledRequest: (request, print) => {
        if (LOOPBACK.has(new URL(request.url).hostname)) return;
        unhandled.push(`${request.method} ${request.url}`);
        print.error();
      },
    }),
  );
  afterEach(() => {
    server.resetHandlers();
    seen.length = 0;
    ids.clear();
    // Code under test may retry and swallow the refusal: the test fails here all the same.
    const refused = unhandled.splice(0);
    if (refused.length) {
      throw new Error(
        `requests no handler answered (refused, nothing left the machine): ${refused.join(", ")}`,
      );
    }
  });
  afterAll(() => server.close());
  return {
    use: (...handlers) => server.use(...handlers),
    requests: () => [...seen],
    requestsTo: (part) => seen.filter((r) => r.url.href.includes(part)),
  };
}

/** An intercepted request as handlers read it: its JSON body parsed. */
export async function asModelRequest(request: Request): Promise<ModelRequest> {
  const text = await request.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { raw: text };
  }
  return { method: request.method, url: new URL(request.url), headers: request.headers, body };
}

/** Answers `times` requests to `url` (a URL or msw path pattern) with an HTTP error. */
export function failing(
  url: string,
  status: number,
  body: unknown,
  options: { times?: number; headers?: Record<string, string> } = {},
): RequestHandler {
  let left = options.times ?? Number.POSITIVE_INFINITY;
  return http.post(url, () => {
    // Used up: the next handler answers.
    if (left <= 0) return undefined;
    left--;
    return HttpResponse.json(body as JsonBodyType, { status, headers: options.headers });
  });
}

/** Everything the request says in text: system prompt and user messages, whatever the API. */
/**
 * What the caller asked for: the prompt's `Instruction:` part, up to the page outline (not
 * the system prompt, whose words describe the outline itself).
 */
export function instructionOf(request: ModelRequest): string {
  const prompt = promptOf(request);
  const at = prompt.lastIndexOf("Instruction:");
  return at === -1 ? "" : prompt.slice(at).split("Page outline")[0]!;
}

export function promptOf(request: ModelRequest): string {
  const parts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") parts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === "object") {
      const v = value as Record<string, unknown>;
      for (const key of [
        "text",
        "content",
        "input",
        "system",
        "instructions",
        "messages",
        "parts",
        "contents",
      ]) {
        if (key in v) collect(v[key]);
      }
    }
  };
  collect(request.body);
  return parts.join("\n");
}

/**
 * The id of the outline line that contains `needle` (`[12] button "Add to cart"` → "12"), read
 * from the prompt the model was sent: how a scripted answer names an element.
 */
export function idOfLine(prompt: string, needle: string): string | undefined {
  for (const line of prompt.split("\n")) {
    const m = line.match(/^\s*\[(\d+)\] /);
    if (m && line.includes(needle)) return m[1];
  }
  return undefined;
}
