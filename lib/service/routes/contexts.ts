/**
 * `POST /v1/contexts`, `GET /v1/contexts/{id}`, `DELETE /v1/contexts/{id}`: a project's
 * contexts (lib/service/contextStore.ts), each a browser profile a session can start with
 * (`browserSettings.context: {id, persist}` on /start). Another project's context answers 404,
 * as one that never was.
 */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { parseInput } from "../../options.js";
import { answerPlain } from "../answers.js";
import type { ContextStore } from "../contextStore.js";

const Id = z.object({ id: z.string().min(1) });
/** The platform's create body: `projectId` (the key's project is used, whatever it says). */
const CreateSchema = z.looseObject({ projectId: z.string().optional() }).optional();

export function contextRoutes(deps: { contexts: ContextStore }): FastifyPluginAsync {
  const { contexts } = deps;
  return async (app) => {
    app.post("/v1/contexts", (request, reply) =>
      answerPlain(reply, async () => {
        parseInput(CreateSchema, request.body ?? undefined, "body");
        return contexts.create(request.project);
      }),
    );
    app.get("/v1/contexts/:id", (request, reply) =>
      answerPlain(reply, async () => {
        const { id } = parseInput(Id, request.params, "path");
        return contexts.get(request.project, id);
      }),
    );
    app.delete("/v1/contexts/:id", (request, reply) =>
      answerPlain(reply, async () => {
        const { id } = parseInput(Id, request.params, "path");
        await contexts.delete(request.project, id);
        return { id, deleted: true };
      }),
    );
  };
}
