/**
 * Requests to a v1 service: the key headers on each, every wait bounded, JSON answers unwrapped
 * (`{success: true, data}`) or turned back into their error class, streamed answers read as
 * frames. A request is sent again only where that cannot do a thing twice: when the connection
 * was refused (nothing reached the service), or for a request that changes nothing (GET).
 */
import { fromWireError } from "../api/errors.js";
import { FailureBodySchema, SuccessBodySchema } from "../api/v1.js";
import { ServiceError, ServiceTimeoutError } from "../errors.js";
import { sleep } from "../timeout.js";
import { sseFrames } from "./sseFrames.js";

export interface ServiceHttpSettings {
  /** The service's base URL, ending in /v1. */
  baseUrl: string;
  apiKey: string;
  /** Sent as x-model-api-key on every call: the service's model calls use it. */
  modelApiKey: string | undefined;
}

/** How long a JSON request may take (start, end, the platform routes). */
const JSON_TIMEOUT_MS = 30_000;
/** How long a streamed answer may take to begin: its frames then keep it alive. */
const STREAM_START_TIMEOUT_MS = 30_000;
const RETRY_DELAYS_MS = [200, 600, 1_500];

/** A failure the service answered: its status and the error it carries. */
export class ServiceAnswerError extends ServiceError {
  override name = "ServiceAnswerError";
  constructor(
    readonly status: number,
    readonly error: ServiceError,
  ) {
    super(error.message, { cause: error });
  }
}

export class ServiceHttp {
  constructor(private readonly settings: ServiceHttpSettings) {}

  get baseUrl(): string {
    return this.settings.baseUrl;
  }

  /** `{success: true, data}`'s data; a failure thrown as its class (inside ServiceAnswerError). */
  json(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<unknown> {
    return this.answer(method, path, body, options, unwrap);
  }

  /** A platform route's answer: the object itself, not an envelope; a failure as for json(). */
  plain(
    method: "GET" | "POST",
    path: string,
    options: { signal?: AbortSignal; body?: unknown } = {},
  ): Promise<unknown> {
    return this.answer(method, path, options.body, options, (response, body) => {
      if (response.ok) return body;
      return unwrap(response, body);
    });
  }

  private async answer(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    options: { signal?: AbortSignal; timeoutMs?: number },
    read: (response: Response, body: unknown) => unknown,
  ): Promise<unknown> {
    const what = `${method} ${path}`;
    const { response, release } = await this.send(method, path, body, {
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? JSON_TIMEOUT_MS,
      retryAnswered: method === "GET",
      headers: {},
      what,
    });
    try {
      return read(response, await readJson(response, what));
    } finally {
      release();
    }
  }

  /** A streamed answer's frames, as JSON texts. A failure before the stream is thrown as its class. */
  async *stream(
    path: string,
    body: unknown,
    options: { signal?: AbortSignal; headers?: Record<string, string> } = {},
  ): AsyncIterable<string> {
    const { response, release } = await this.send("POST", path, body, {
      signal: options.signal,
      timeoutMs: STREAM_START_TIMEOUT_MS,
      retryAnswered: false,
      headers: { "x-stream-response": "true", ...options.headers },
      what: `POST ${path}`,
    });
    // The timer bounded the wait for the answer to begin; the frames then come as the run goes
    // (bounded by the operation's own timeout on the service, and the caller's signal here).
    release();
    const type = response.headers.get("content-type") ?? "";
    if (!type.includes("text/event-stream")) {
      // Bad input, an unknown or busy session: answered as JSON before any stream.
      unwrap(response, await readJson(response, `POST ${path}`));
      throw new ServiceError(`POST ${path}: the service answered without a stream.`);
    }
    if (!response.body) throw new ServiceError(`POST ${path}: the service's stream had no body.`);
    try {
      yield* sseFrames(response.body);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new ServiceError(
        `POST ${path}: the service's answer was cut off mid-stream (${messageOf(error)}). The operation may or may not have been done; it was not sent again.`,
        { cause: error },
      );
    }
  }

  private headers(extra: Record<string, string>, hasBody: boolean): Record<string, string> {
    const { apiKey, modelApiKey } = this.settings;
    return {
      // Ours, and the alias other v1 services read.
      "x-wf-api-key": apiKey,
      "x-bb-api-key": apiKey,
      ...(modelApiKey ? { "x-model-api-key": modelApiKey } : {}),
      ...(hasBody ? { "content-type": "application/json" } : {}),
      ...extra,
    };
  }

  /** The answer once its headers are in; `release` ends the timer that bounds it. */
  private async send(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    options: {
      signal: AbortSignal | undefined;
      timeoutMs: number;
      retryAnswered: boolean;
      headers: Record<string, string>;
      what: string;
    },
  ): Promise<{ response: Response; release: () => void }> {
    const url = `${this.settings.baseUrl}${path}`;
    for (let attempt = 0; ; attempt++) {
      const timer = new AbortController();
      const timeout = setTimeout(
        () =>
          timer.abort(
            new ServiceTimeoutError(options.what, options.timeoutMs, "the service to answer", []),
          ),
        options.timeoutMs,
      );
      const release = () => clearTimeout(timeout);
      const signal = options.signal
        ? AbortSignal.any([options.signal, timer.signal])
        : timer.signal;
      try {
        const response = await fetch(url, {
          method,
          headers: this.headers(options.headers, body !== undefined),
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        });
        const retryable = options.retryAnswered && [502, 503, 504].includes(response.status);
        if (!retryable || attempt >= RETRY_DELAYS_MS.length) return { response, release };
        release();
        await response.body?.cancel().catch(() => {});
      } catch (error) {
        release();
        if (options.signal?.aborted) throw options.signal.reason;
        if (timer.signal.aborted) throw timer.signal.reason;
        // Refused: nothing reached the service, so sending again cannot do anything twice.
        const refused = codeOf(error) === "ECONNREFUSED";
        if (!(refused || options.retryAnswered) || attempt >= RETRY_DELAYS_MS.length) {
          throw new ServiceError(
            `${options.what}: the service at ${this.settings.baseUrl} could not be reached (${messageOf(error)}).${refused ? " Is it running? (WAYFARER_API_URL)" : ""}`,
            { cause: error },
          );
        }
      }
      await sleep(RETRY_DELAYS_MS[attempt]!, options.signal);
      if (options.signal?.aborted) throw options.signal.reason;
    }
  }
}

async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ServiceError(
      `${what}: the service answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
    );
  }
}

function unwrap(response: Response, body: unknown): unknown {
  const ok = SuccessBodySchema.safeParse(body);
  if (response.ok && ok.success) return ok.data.data;
  const failed = FailureBodySchema.safeParse(body);
  const error = failed.success
    ? failed.data.error
      ? fromWireError(failed.data.error)
      : new ServiceError(failed.data.message)
    : new ServiceError(
        `The service answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`,
      );
  throw new ServiceAnswerError(response.status, error);
}

function codeOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === "string" ? cause.code : undefined;
}

function messageOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const inner = cause instanceof Error ? cause.message : undefined;
  return inner ?? (error instanceof Error ? error.message : String(error));
}
