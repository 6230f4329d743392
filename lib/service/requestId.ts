/**
 * Request ids (docs/guide/operations.md, "Request ids"): `x-request-id` as the caller or a proxy
 * in front sent it, when it is short and plain, else one made here. It is answered on every
 * response, passed on with a request forwarded to the instance that owns its session (which
 * answers it under the same id), and named in the log lines of the request: the service's own
 * (a failure that is the service's to look at) and each log frame of its stream.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Redactor } from "../log.js";
import { readableMessage } from "../readableError.js";
import type { Answered } from "./metrics.js";
import { callerModelKey } from "./modelBoundary.js";

export const REQUEST_ID = "x-request-id";

/**
 * What a given id may be: a UUID, a ULID, a trace id, a load balancer's `Root=1-…` all fit. Any
 * other (too long, spaces, control or non-ASCII characters, two headers joined) is replaced, never
 * refused: a tracing header must not fail the call it traces.
 */
const GIVEN = /^[A-Za-z0-9._:;=+/@-]{1,128}$/;

/** The request's id (Fastify's `genReqId`: it becomes `request.id`). */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID];
  return typeof given === "string" && GIVEN.test(given) ? given : randomUUID();
}

/**
 * onRequest: the id on the answer, set on the raw response so an answer written past Fastify (a
 * stream, a forwarded one) carries it too, and on the request as a forward sends it on.
 */
export async function tagRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.raw.setHeader(REQUEST_ID, request.id);
  request.raw.headers[REQUEST_ID] = request.id;
}

/**
 * The service's log line of a failure that is its own to look at (a 5xx): the route, never the
 * path (a query may hold a token), the session by id, and the message with every secret the
 * service knows and the caller's model key taken out.
 */
export function failureLine(
  request: FastifyRequest,
  answered: Answered,
  secrets: readonly string[],
): string {
  const route = request.routeOptions.url ?? "(no route)";
  const session = (request.params as { id?: unknown } | undefined)?.id;
  const redactor = new Redactor([...secrets, callerModelKey(request.headers)]);
  const why =
    answered.error === undefined ? "" : `: ${redactor.text(readableMessage(answered.error))}`;
  return [
    `error: ${request.method} ${route} answered ${answered.status} (${answered.code})`,
    typeof session === "string"
      ? ` for session ${session.slice(0, 128).replace(/[^\w.:-]/g, "?")}`
      : "",
    ` after ${answered.seconds.toFixed(1)} s${why.replace(/[\r\n]+/g, " ")}`,
    ` [request ${request.id}]`,
  ].join("");
}
