/**
 * How the service answers: one JSON body (`{success: true, data}` or `{success: false, message,
 * error}`), or, when asked, a stream of SSE frames in the framing the client reads (DESIGN.md,
 * "Wire protocol v1"). The one module that writes SSE.
 */
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { toWireError } from "../api/errors.js";
import type { AgentEvent } from "../api/operations.js";
import type { StreamFrame } from "../api/v1.js";
import { errorEntryOfInstance } from "../errorRegistry.js";
import { ServiceError, ServiceTimeoutError } from "../errors.js";
import type { LogLine } from "../log.js";
import { readableMessage } from "../readableError.js";
import { isPlaywrightTimeout } from "../timeout.js";
import { noteFailure } from "./metrics.js";
import { QuotaExceeded } from "./quotas.js";
import {
  CallerBrowserUnreachable,
  NotInSharedMode,
  OwnerUnreachable,
  ServiceFull,
  ServiceStopping,
  SessionBusyError,
  SessionGone,
  SessionNotFound,
} from "./serviceErrors.js";
import type { OperationSink } from "./session.js";

/** The header `x-stream-response` when given (it wins), else the body's `streamResponse`. */
export function wantsStream(request: FastifyRequest): boolean {
  const header = request.headers["x-stream-response"];
  if (typeof header === "string" && header !== "") return header.toLowerCase() === "true";
  const body = request.body as { streamResponse?: unknown } | undefined;
  return body?.streamResponse === true;
}

/**
 * The status of a failure, from its class: the service's own refusals here, every library error
 * by its registry entry (docs/reference/errors.md). 500 is left for what is the service's to
 * look at: an error of no known class, or one the registry gives 500.
 */
export function statusOf(error: unknown): number {
  if (error instanceof SessionNotFound) return 404;
  if (error instanceof SessionBusyError) return 409;
  if (error instanceof QuotaExceeded) return 429;
  if (error instanceof ServiceFull || error instanceof ServiceStopping) return 503;
  if (error instanceof SessionGone) return 410;
  if (error instanceof NotInSharedMode) return 501;
  if (error instanceof OwnerUnreachable || error instanceof CallerBrowserUnreachable) return 502;
  // The browser's launch is bounded by the operator's launch timeout, not by the caller's.
  if (error instanceof ServiceTimeoutError && error.method === "init") return 500;
  // Playwright's own, should one ever get past our wrappers: a deadline passed.
  if (isPlaywrightTimeout(error)) return 504;
  return errorEntryOfInstance(error)?.status ?? 500;
}

export function failureBody(error: unknown) {
  return { success: false as const, message: readableMessage(error), error: toWireError(error) };
}

/** What an operation run for a stream may send besides its result. */
export interface StreamOut extends OperationSink {
  event: (event: AgentEvent) => void;
}

/**
 * How a stream's frames are written. `data`: one `data:` line per frame, the reference's framing,
 * the only one the 3.7 TypeScript client reads (it skips a frame that does not start with
 * `data: ` and parses the rest of the frame whole, so any other line breaks it). `events`: an
 * `event:` line naming the status before the same data line, the only frames the generated SDKs
 * (Python, Go, Java: Stainless) read; they raise on `event: error` and skip unnamed frames.
 * No one frame is read by both, so the framing follows the client.
 */
export type StreamFraming = "data" | "events";

/** `events` for a generated SDK (it sends `x-stainless-*` headers on every request), else `data`. */
export function framingOf(headers: IncomingHttpHeaders): StreamFraming {
  return Object.keys(headers).some((name) => name.toLowerCase().startsWith("x-stainless-"))
    ? "events"
    : "data";
}

/** One SSE frame, as written on the wire: a log frame is named `running`, a system frame by its status. */
export function frameText(frame: Omit<StreamFrame, "id">, framing: StreamFraming = "data"): string {
  const data = `data: ${JSON.stringify({ id: randomUUID(), ...frame })}\n\n`;
  if (framing === "data") return data;
  const status = frame.type === "system" ? (frame.data as { status: string }).status : "running";
  return `event: ${status}\n${data}`;
}

/** A signal that aborts when the client goes away before its answer is written. */
function whileConnected(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) gone.abort(new ServiceError("the client went away"));
  });
  return gone.signal;
}

/**
 * A failure as one JSON body, with what tells a client's retry loop when trying again helps:
 * `retry-after` when the error knows (a minute's budget), and `x-should-retry: false` for a 429
 * that waiting a few seconds cannot lift (a project's sessions, a day's budget, a token cap), so
 * SDKs that retry every 429 (the generated ones: twice, with backoff) do not ask in vain.
 */
export function sendFailure(reply: FastifyReply, error: unknown) {
  noteFailure(reply.request.raw, error);
  const status = statusOf(error);
  const after = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof after === "number" && Number.isFinite(after)) {
    reply.header("retry-after", String(Math.max(0, Math.ceil(after))));
  }
  // A 429 waiting cannot lift, and a feature this service does not have (501).
  if ((status === 429 && !(typeof after === "number" && after <= 60)) || status === 501) {
    reply.header("x-should-retry", "false");
  }
  // A provider that refused the request itself (a key, a model name) refuses it again.
  const upstream = (error as { status?: unknown }).status;
  if (status === 502 && typeof upstream === "number" && upstream >= 400 && upstream < 500) {
    if (![408, 409, 429].includes(upstream)) reply.header("x-should-retry", "false");
  }
  return reply.code(status).send(failureBody(error));
}

/** A platform route's answer: the object itself (as the platform API answers), or a failure. */
export async function answerPlain(reply: FastifyReply, work: () => Promise<unknown>) {
  try {
    return reply.send(await work());
  } catch (error) {
    return sendFailure(reply, error);
  }
}

/** An operation's answer as one JSON body. */
export async function answerJson(
  reply: FastifyReply,
  work: (signal: AbortSignal) => Promise<unknown>,
) {
  const signal = whileConnected(reply);
  const started = performance.now();
  try {
    const data = await work(signal);
    // The operation's own time, so a caller can tell it from what HTTP and the service add.
    const ms = (performance.now() - started).toFixed(1);
    return reply.header("server-timing", `op;dur=${ms}`).send({ success: true, data });
  } catch (error) {
    return sendFailure(reply, error);
  }
}

/**
 * An operation's answer as SSE frames: starting, connected, its log lines (and an agent's
 * events) as they happen, then finished (`finished` shapes its fields from the result) or
 * error. `work` also gets a signal that aborts when the client goes away.
 */
export async function answerStream(
  reply: FastifyReply,
  work: (out: StreamOut, signal: AbortSignal) => Promise<unknown>,
  finished: (result: unknown) => Record<string, unknown> = (result) => ({ result }),
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  const signal = whileConnected(reply);
  const framing = framingOf(reply.request.headers);
  raw.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    // Proxies (nginx) must pass each frame on as it comes.
    "x-accel-buffering": "no",
  });
  const requestId = reply.request.id;
  const send = (frame: Omit<StreamFrame, "id">) => {
    // Each log line names its request (docs/guide/operations.md, "Request ids").
    const tagged =
      frame.type === "log" ? { ...frame, data: { ...(frame.data as object), requestId } } : frame;
    if (!raw.writableEnded) raw.write(frameText(tagged, framing));
  };
  send({ type: "system", data: { status: "starting" } });
  send({ type: "system", data: { status: "connected" } });
  const line = (line: LogLine) =>
    send({
      type: "log",
      data: {
        status: "running",
        message: {
          category: line.category,
          message: line.message,
          level: line.level,
          ...(line.auxiliary ? { auxiliary: line.auxiliary } : {}),
        },
      },
    });
  const event = (event: AgentEvent) =>
    send({
      type: "log",
      data: {
        status: "running",
        message: { category: "agent", message: event.type, level: 2 },
        event,
      },
    });
  // Ours, optional on the wire (v3 clients ignore it): each model call's usage, for the
  // client's metrics.
  const usage: OperationSink["usage"] = (group, figures) =>
    send({
      type: "log",
      data: {
        status: "running",
        message: { category: "metrics", message: `${group} model usage`, level: 2 },
        usage: { operation: group, ...figures },
      },
    });
  // A comment, read by no client (the 3.7 client skips a frame not starting with `data: `, the
  // SDKs skip `:` lines) and seen by every proxy: a long model call never leaves it quiet.
  const keepAlive = (note: string) => {
    if (!raw.writableEnded) raw.write(`: ${note.replace(/[\r\n]+/g, " ")}\n\n`);
  };
  try {
    const result = await work({ line, event, usage, keepAlive }, signal);
    send({ type: "system", data: { status: "finished", ...finished(result) } });
  } catch (error) {
    noteFailure(reply.request.raw, error, statusOf(error));
    send({
      type: "system",
      data: { status: "error", error: readableMessage(error), errorDetail: toWireError(error) },
    });
  }
  raw.end();
}
