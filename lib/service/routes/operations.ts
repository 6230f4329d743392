/**
 * `POST /v1/sessions/{id}/navigate|act|extract|observe`: the body checked by its wire schema
 * and the session found (a 4xx JSON answer otherwise, even when a stream was asked for), then
 * the operation run on the session's engine, answered as one JSON body or as SSE frames.
 */
import { randomUUID } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  ActBodySchema,
  AgentExecuteBodySchema,
  ExtractBodySchema,
  NavigateBodySchema,
  ObserveBodySchema,
} from "../../api/v1.js";
import { NavigationRefusedError, navigationRefusal } from "../../browser/navigationPolicy.js";
import type { AgentExecuteAnswer } from "../../engine/engine.js";
import { pageById } from "../../handlers/pageSnapshot.js";
import { type AddressRule, urlRefusal } from "../../net/addressRule.js";
import { parseInput } from "../../options.js";
import {
  answerJson,
  answerStream,
  failureBody,
  type StreamOut,
  statusOf,
  wantsStream,
} from "../answers.js";
import type { Session } from "../session.js";
import type { Sessions } from "../sessions.js";

const Id = z.object({ id: z.string().min(1) });

/** Where an operation's log lines and events go: the stream, or nowhere for a JSON answer. */
type Out = StreamOut | undefined;

/** An agent run answers `{result, cacheEntry?}` itself; every other operation its result. */
const agentFields = (answer: unknown) => {
  const { result, cacheEntry } = answer as AgentExecuteAnswer;
  return cacheEntry ? { result, cacheEntry } : { result };
};

export function operationRoutes(deps: {
  sessions: Sessions;
  rule: AddressRule;
}): FastifyPluginAsync {
  /** Checks the request, then runs `perform` and answers the way the caller asked. */
  const run = <B>(
    request: FastifyRequest,
    reply: FastifyReply,
    schema: z.ZodType<B>,
    where: string,
    perform: (session: Session, body: B, out: Out, signal: AbortSignal) => Promise<unknown>,
    agent = false,
  ) => {
    let session: Session;
    let body: B;
    try {
      const { id } = parseInput(Id, request.params, "path");
      body = parseInput(schema, request.body, where);
      session = deps.sessions.get(id, request.project);
      session.assertFree();
    } catch (error) {
      return reply.code(statusOf(error)).send(failureBody(error));
    }
    // A stream's finished frame carries the result; a JSON answer, the result and an id.
    if (wantsStream(request)) {
      return answerStream(
        reply,
        (out, signal) => perform(session, body, out, signal),
        agent ? agentFields : undefined,
      );
    }
    return answerJson(reply, async (signal) => {
      const result = await perform(session, body, undefined, signal);
      return agent ? agentFields(result) : { result, actionId: randomUUID() };
    });
  };

  /** Refused by the rule before the browser is asked: a clear error, not a 403 page. */
  const checkUrl = async (url: string) => {
    const refused =
      (await navigationRefusal(url, {})) ??
      (/^https?:/i.test(url) ? await urlRefusal(url, deps.rule) : undefined);
    if (refused) throw new NavigationRefusedError(url, refused);
  };

  return async (app) => {
    app.post("/v1/sessions/:id/navigate", (request, reply) =>
      run(request, reply, NavigateBodySchema, "navigate body", (session, body, out) =>
        session.operate(
          "navigate",
          async (_operations, context) => {
            await checkUrl(body.url);
            const page = await pageById(context, body.frameId);
            await page.goto(body.url, body.options);
            return null;
          },
          out?.line,
        ),
      ),
    );
    app.post("/v1/sessions/:id/act", (request, reply) =>
      run(
        request,
        reply,
        ActBodySchema,
        "act body",
        (session, { streamResponse: _, ...body }, out) =>
          session.operate("act", (operations) => operations.act(body), out?.line),
      ),
    );
    app.post("/v1/sessions/:id/extract", (request, reply) =>
      run(
        request,
        reply,
        ExtractBodySchema,
        "extract body",
        (session, { streamResponse: _, ...body }, out) =>
          session.operate("extract", (operations) => operations.extract(body), out?.line),
      ),
    );
    app.post("/v1/sessions/:id/agentExecute", (request, reply) =>
      run(
        request,
        reply,
        AgentExecuteBodySchema,
        "agentExecute body",
        (session, { streamResponse: _, frameId, ...body }, out, signal) =>
          session.operate(
            "agentExecute",
            (operations) =>
              operations.agentExecute(
                { ...body, ...(frameId ? { frameId } : {}) },
                // A client that goes away stops its run; the session stays.
                { signal, onEvent: out?.event },
              ),
            out?.line,
          ),
        true,
      ),
    );
    app.post("/v1/sessions/:id/observe", (request, reply) =>
      run(
        request,
        reply,
        ObserveBodySchema,
        "observe body",
        (session, { streamResponse: _, ...body }, out) =>
          session.operate("observe", (operations) => operations.observe(body), out?.line),
      ),
    );
  };
}
