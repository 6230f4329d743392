/**
 * The browser-platform routes an existing v3 client asks (DESIGN.md, "The browser connection"):
 * `GET /v1/sessions/{id}` (its `connectUrl`), `GET /v1/sessions/{id}/debug`, and
 * `POST /v1/sessions/{id}` with `{status: "REQUEST_RELEASE"}` to end it. Links use the public
 * base URL, never the bind address; the debugger links lead to the session's dashboard.
 */
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { z } from "zod";
import { parseInput } from "../../options.js";
import { answerPlain } from "../answers.js";
import type { BrowserAccess } from "../browserAccess.js";
import { dashboardLink, publicBase } from "../links.js";
import type { Sessions } from "../sessions.js";

const Id = z.object({ id: z.string().min(1) });
const ReleaseSchema = z.looseObject({ status: z.literal("REQUEST_RELEASE") });

export function platformRoutes(deps: {
  sessions: Sessions;
  access: BrowserAccess;
  publicUrl: string | undefined;
}): FastifyPluginAsync {
  const { sessions, access } = deps;
  const base = (request: FastifyRequest) => publicBase(request, deps.publicUrl);
  const ws = (request: FastifyRequest, path: string) =>
    `${base(request).replace(/^http/, "ws")}${path}`;

  return async (app) => {
    app.get("/v1/sessions/:id", (request, reply) =>
      answerPlain(reply, async () => {
        const { id } = parseInput(Id, request.params, "path");
        const session = sessions.get(id, request.project);
        return {
          id: session.id,
          status: "RUNNING",
          projectId: session.project,
          createdAt: new Date(session.createdAt).toISOString(),
          // Attached to the caller's own browser: its address, as /start answered (no proxy).
          connectUrl: session.callerCdpUrl ?? ws(request, access.mint(session.id, true)),
          keepAlive: session.details.keepAlive,
          ...(session.details.userMetadata ? { userMetadata: session.details.userMetadata } : {}),
        };
      }),
    );

    app.get("/v1/sessions/:id/debug", (request, reply) =>
      answerPlain(reply, async () => {
        const { id } = parseInput(Id, request.params, "path");
        const session = sessions.get(id, request.project);
        const wsUrl = session.callerCdpUrl ?? ws(request, access.mint(session.id));
        const pages = await session.pageList();
        // Both lead to the session's live dashboard.
        const dashboard = dashboardLink(base(request), session);
        return {
          debuggerUrl: dashboard,
          debuggerFullscreenUrl: dashboard,
          wsUrl,
          pages: pages.map((p) => ({ id: p.id, url: p.url, title: p.title })),
        };
      }),
    );

    app.post("/v1/sessions/:id", (request, reply) =>
      answerPlain(reply, async () => {
        const { id } = parseInput(Id, request.params, "path");
        parseInput(ReleaseSchema, request.body, "body");
        await sessions.end(id, request.project);
        return { id, status: "COMPLETED" };
      }),
    );
  };
}
