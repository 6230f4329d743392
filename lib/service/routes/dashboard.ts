/**
 * The live dashboard: `GET /dashboard/{id}` is a page that shows a session as it runs, from
 * `GET /dashboard/{id}/state` and `GET /dashboard/{id}/picture`, which answer only to the
 * session's read-only view token (header `x-wf-view-token`; never the API key, which these routes
 * do not take). The page itself holds nothing: without a valid token it shows nothing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Session } from "../session.js";
import type { Sessions } from "../sessions.js";
import { pictureOf, viewOf } from "../sessionView.js";

const ASSETS = join(import.meta.dirname, "..", "dashboard");
const PAGE = readFileSync(join(ASSETS, "page.html"), "utf8");
const SCRIPT = readFileSync(join(ASSETS, "page.js"), "utf8");

const Params = z.object({ id: z.string().min(1).max(100) });
const After = z.object({ after: z.coerce.number().int().min(0).default(0) });

/** What the page may do: its own script, its own requests, pictures it made itself. */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** Answered without an API key: the page holds nothing, its data answers to the view token. */
const PUBLIC = { config: { public: true } };

const digest = (text: string) => createHash("sha256").update(text).digest();

export function dashboardRoutes(deps: { sessions: Sessions }): FastifyPluginAsync {
  /** The live session the request's view token opens; one answer for a wrong token or id. */
  const viewed = (request: FastifyRequest, reply: FastifyReply): Session | undefined => {
    const params = Params.safeParse(request.params);
    const token = request.headers["x-wf-view-token"];
    const session = params.success ? deps.sessions.find(params.data.id) : undefined;
    const valid =
      session !== undefined &&
      typeof token === "string" &&
      timingSafeEqual(digest(token), digest(session.viewToken));
    if (valid) return session;
    reply.code(404).header("cache-control", "no-store").send({
      success: false,
      message: "Nothing to show: the link is not valid, or the session ended.",
    });
    return undefined;
  };

  return async (app) => {
    app.get("/dashboard/page.js", PUBLIC, (_request, reply) =>
      reply.headers(PAGE_HEADERS).type("text/javascript; charset=utf-8").send(SCRIPT),
    );
    app.get("/dashboard/:id", PUBLIC, (_request, reply) =>
      reply.headers(PAGE_HEADERS).type("text/html; charset=utf-8").send(PAGE),
    );
    app.get("/dashboard/:id/state", PUBLIC, async (request, reply) => {
      const session = viewed(request, reply);
      if (!session) return reply;
      const after = After.safeParse(request.query ?? {}).data?.after ?? 0;
      return reply.header("cache-control", "no-store").send(await viewOf(session, after));
    });
    app.get("/dashboard/:id/picture", PUBLIC, async (request, reply) => {
      const session = viewed(request, reply);
      if (!session) return reply;
      const image = await pictureOf(session);
      if (!image) return reply.code(204).header("cache-control", "no-store").send();
      return reply.header("cache-control", "no-store").type("image/jpeg").send(image);
    });
  };
}
