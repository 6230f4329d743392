/**
 * `POST /v1/sessions/{id}/navigate|act|extract|observe`: the body checked by its wire schema
 * and the session found (a 4xx JSON answer otherwise, even when a stream was asked for), then
 * the operation run on the session's engine, answered as one JSON body or as SSE frames.
 */
import { randomUUID } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ActRequest } from "../../api/operations.js";
import {
  ActBodySchema,
  AgentExecuteBodySchema,
  dropUnknownExecuteOptions,
  ExtractBodySchema,
  NavigateBodySchema,
  ObserveBodySchema,
  roundWholeNumbers,
} from "../../api/v1.js";
import type { Context } from "../../browser/context.js";
import { checkNavigation, NavigationRefusedError } from "../../browser/navigationPolicy.js";
import type { AgentExecuteAnswer, Operations } from "../../engine/engine.js";
import { dropSharedSnapshot, pageById, sharingSnapshots } from "../../handlers/pageSnapshot.js";
import { type AddressRule, urlRefusal } from "../../net/addressRule.js";
import type { Action } from "../../options.js";
import { parseInput } from "../../options.js";
import { answerJson, answerStream, type StreamOut, sendFailure, wantsStream } from "../answers.js";
import { callerModelKey, checkCallerModels } from "../modelBoundary.js";
import { bypassed, type ServerCacheStore, serverCacheKey } from "../serverCache.js";
import type { Session } from "../session.js";
import type { Sessions } from "../sessions.js";

const Id = z.object({ id: z.string().min(1) });

/** Where an operation's log lines and events go: the stream, or nowhere for a JSON answer. */
type Out = StreamOut | undefined;

/** An answer the server cache looked up: HIT or MISS, told in headers or the finished frame. */
class CachedAnswer {
  constructor(
    readonly result: unknown,
    readonly status: "HIT" | "MISS",
  ) {}
}

/** An agent run answers `{result, cacheEntry?}` itself; every other operation its result. */
const agentFields = (answer: unknown) => {
  const { result, cacheEntry } = answer as AgentExecuteAnswer;
  return cacheEntry ? { result, cacheEntry } : { result };
};

export function operationRoutes(deps: {
  sessions: Sessions;
  rule: AddressRule;
  cache: ServerCacheStore | undefined;
}): FastifyPluginAsync {
  /** Checks the request, then runs `perform` and answers the way the caller asked. */
  const run = async <B>(
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
      roundWholeNumbers(request.body);
      body = parseInput(schema, request.body, where);
      session = deps.sessions.get(id, request.project);
      // The operator's keys only to the operator's endpoints; a caller's endpoint by the rule.
      await checkCallerModels(body, deps.rule, callerModelKey(request.headers));
      // Last, with no wait before the operation claims the session: a second caller gets 409.
      session.assertFree();
      // Values a caller types are painted over in the dashboard's pictures.
      const { options, executeOptions } = body as {
        options?: { variables?: Record<string, unknown> };
        executeOptions?: { variables?: Record<string, unknown> };
      };
      session.rememberValues(options?.variables ?? executeOptions?.variables);
    } catch (error) {
      return sendFailure(reply, error);
    }
    // The run stops when its client goes away or when the session ends (/end is never refused).
    const untilEnd = (gone: AbortSignal) =>
      AbortSignal.any([gone, session.endSignal, session.stopSignalForNext()]);
    // A stream's finished frame carries the result; a JSON answer, the result and an id.
    if (wantsStream(request)) {
      return answerStream(
        reply,
        (out, signal) => perform(session, body, out, untilEnd(signal)),
        agent
          ? agentFields
          : (answer) =>
              answer instanceof CachedAnswer
                ? { result: answer.result, cacheHit: answer.status === "HIT" }
                : { result: answer },
      );
    }
    return answerJson(reply, async (signal) => {
      const answer = await perform(session, body, undefined, untilEnd(signal));
      if (agent) return agentFields(answer);
      if (!(answer instanceof CachedAnswer)) return { result: answer, actionId: randomUUID() };
      reply
        .header("browserbase-cache-status", answer.status)
        .header("x-cache-status", answer.status);
      return { result: answer.result, actionId: randomUUID() };
    });
  };

  /**
   * Refused by the rule before the browser is asked: a clear error, not a 403 page. The scheme
   * by the navigation policy; an http(s) host by the service's rule, resolved once.
   */
  const checkUrl = async (url: string) => {
    const parsed = checkNavigation(url);
    if (!/^https?:$/.test(parsed.protocol)) return;
    const refused = await urlRefusal(url, deps.rule);
    if (refused) throw new NavigationRefusedError(url, refused);
  };

  /**
   * Runs act, extract or observe through the server cache unless the caller turned it off or the
   * call asks no model: the page's outline is read, the key made, a HIT answered (act performs
   * the recorded action), a MISS run and kept.
   */
  const cached = <R>(
    request: FastifyRequest,
    session: Session,
    operation: "act" | "extract" | "observe",
    body: { frameId?: string; options?: Record<string, unknown> } & Record<string, unknown>,
    asksModel: boolean,
    live: (operations: Operations) => Promise<R>,
    keep: (result: R) => unknown,
    signal: AbortSignal,
  ) => {
    /** The key from the page's outline; a HIT answered, a MISS run and kept. */
    const throughCache = async (
      store: ServerCacheStore,
      operations: Operations,
      context: Context,
    ): Promise<unknown> => {
      const page = await pageById(context, body.frameId);
      const { pageText } = (await operations.extract(
        { options: {}, ...(body.frameId ? { frameId: body.frameId } : {}) },
        { signal },
      )) as { pageText: string };
      // A project's entries are its own: another's calls never learn what it asked, nor get
      // answers from an endpoint another project chose.
      const key = serverCacheKey(
        operation,
        body,
        { url: page.url(), outline: pageText },
        // The model that answers a call naming none is the session's: it is in the key too.
        { project: request.project, sessionModel: session.modelName },
      );
      const hit = await store.get(key);
      if (hit !== undefined) {
        // The recorded action is performed as it was; the outline of the key is not its.
        if (operation === "act") dropSharedSnapshot();
        const result =
          operation === "act"
            ? await operations.act({ ...(body as ActRequest), input: hit as Action }, { signal })
            : hit;
        return new CachedAnswer(result, "HIT");
      }
      const result = await live(operations);
      const kept = keep(result);
      if (kept !== undefined) await store.put(key, kept);
      return new CachedAnswer(result, "MISS");
    };
    return async (operations: Operations, context: Context): Promise<unknown> => {
      const store = deps.cache;
      const off =
        !store || !asksModel || bypassed(request.headers) || body.options?.serverCache === false;
      if (off) return live(operations);
      // The operation works from the outline read for its key: one walk of the page, not two.
      return sharingSnapshots(() => throughCache(store, operations, context));
    };
  };

  return async (app) => {
    // Ours, optional on the wire: stops the session's operation under way as a library caller's
    // signal stops it, so its caller still gets the answer (an agent's result so far).
    app.post("/v1/sessions/:id/stop", (request, reply) =>
      answerJson(reply, async () => {
        const { id } = parseInput(Id, request.params, "path");
        return { stopped: deps.sessions.get(id, request.project).stopCurrent() };
      }),
    );
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
          out,
          body,
        ),
      ),
    );
    app.post("/v1/sessions/:id/act", (request, reply) =>
      run(
        request,
        reply,
        ActBodySchema,
        "act body",
        (session, { streamResponse: _, ...body }, out, signal) =>
          session.operate(
            "act",
            cached(
              request,
              session,
              "act",
              body,
              typeof body.input === "string",
              (operations) => operations.act(body, { signal }),
              // The action that worked, performed again on a HIT.
              (result) => (result.success ? result.actions.at(-1) : undefined),
              signal,
            ),
            out,
            body,
          ),
      ),
    );
    app.post("/v1/sessions/:id/extract", (request, reply) =>
      run(
        request,
        reply,
        ExtractBodySchema,
        "extract body",
        (session, { streamResponse: _, ...body }, out, signal) =>
          session.operate(
            "extract",
            cached(
              request,
              session,
              "extract",
              body,
              body.instruction !== undefined,
              (operations) => operations.extract(body, { signal }),
              (result) => result,
              signal,
            ),
            out,
            body,
          ),
      ),
    );
    app.post("/v1/sessions/:id/agentExecute", (request, reply) => {
      const ignored = dropUnknownExecuteOptions(request.body);
      return run(
        request,
        reply,
        AgentExecuteBodySchema,
        "agentExecute body",
        (session, { streamResponse: _, frameId, ...body }, out, signal) =>
          session.operate(
            "agentExecute",
            (operations) => {
              if (ignored.length) {
                session.note(
                  `executeOptions: ignored what this service does not take: ${ignored.join(", ")}`,
                );
              }
              return operations.agentExecute(
                { ...body, ...(frameId ? { frameId } : {}) },
                // A client that goes away stops its run; the session stays.
                { signal, onEvent: out?.event },
              );
            },
            out,
            body,
          ),
        true,
      );
    });
    app.post("/v1/sessions/:id/observe", (request, reply) =>
      run(
        request,
        reply,
        ObserveBodySchema,
        "observe body",
        (session, { streamResponse: _, ...body }, out, signal) =>
          session.operate(
            "observe",
            cached(
              request,
              session,
              "observe",
              body,
              body.instruction !== undefined,
              (operations) => operations.observe(body, { signal }),
              (result) => (result.length ? result : undefined),
              signal,
            ),
            out,
            body,
          ),
      ),
    );
  };
}
