/**
 * `POST /v1/sessions/{id}/navigate|act|extract|observe`: the body checked by its wire schema,
 * the operation run on the session's engine, the answer as one JSON body or as SSE frames.
 */

import { randomUUID } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  ActBodySchema,
  ExtractBodySchema,
  NavigateBodySchema,
  ObserveBodySchema,
} from "../../api/v1.js";
import { NavigationRefusedError, navigationRefusal } from "../../browser/navigationPolicy.js";
import { pageById } from "../../handlers/pageSnapshot.js";
import type { LogLine } from "../../log.js";
import { type AddressRule, urlRefusal } from "../../net/addressRule.js";
import { parseInput } from "../../options.js";
import { answerJson, answerStream, wantsStream } from "../answers.js";
import type { Session } from "../session.js";
import type { Sessions } from "../sessions.js";

const Id = z.object({ id: z.string().min(1) });

type Work = (session: Session, sink: ((line: LogLine) => void) | undefined) => Promise<unknown>;

export function operationRoutes(deps: {
  sessions: Sessions;
  rule: AddressRule;
}): FastifyPluginAsync {
  /** Finds the caller's session, runs `work` on it, answers the way the caller asked. */
  const run = (request: FastifyRequest, reply: FastifyReply, work: Work) => {
    const session = () => {
      const { id } = parseInput(Id, request.params, "path");
      return deps.sessions.get(id, request.project);
    };
    // A stream's finished frame carries the result; a JSON answer, the result and an id.
    if (wantsStream(request)) return answerStream(reply, (sink) => work(session(), sink));
    return answerJson(reply, async () => ({
      result: await work(session(), undefined),
      actionId: randomUUID(),
    }));
  };

  return async (app) => {
    app.post("/v1/sessions/:id/navigate", (request, reply) =>
      run(request, reply, (session, sink) => {
        const body = parseInput(NavigateBodySchema, request.body, "navigate body");
        return session.operate(
          "navigate",
          async (_operations, context) => {
            // Refused by the rule before the browser is asked: a clear error, not a 403 page.
            const refused =
              (await navigationRefusal(body.url, {})) ??
              (/^https?:/i.test(body.url) ? await urlRefusal(body.url, deps.rule) : undefined);
            if (refused) throw new NavigationRefusedError(body.url, refused);
            const page = await pageById(context, body.frameId);
            await page.goto(body.url, body.options);
            return null;
          },
          sink,
        );
      }),
    );
    app.post("/v1/sessions/:id/act", (request, reply) =>
      run(request, reply, (session, sink) => {
        const { streamResponse: _, ...body } = parseInput(ActBodySchema, request.body, "act body");
        return session.operate("act", (operations) => operations.act(body), sink);
      }),
    );
    app.post("/v1/sessions/:id/extract", (request, reply) =>
      run(request, reply, (session, sink) => {
        const { streamResponse: _, ...body } = parseInput(
          ExtractBodySchema,
          request.body,
          "extract body",
        );
        return session.operate("extract", (operations) => operations.extract(body), sink);
      }),
    );
    app.post("/v1/sessions/:id/observe", (request, reply) =>
      run(request, reply, (session, sink) => {
        const { streamResponse: _, ...body } = parseInput(
          ObserveBodySchema,
          request.body,
          "observe body",
        );
        return session.operate("observe", (operations) => operations.observe(body), sink);
      }),
    );
  };
}
