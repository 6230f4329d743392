/**
 * The live dashboard. `GET /dashboard/{id}` is a page that shows a session as it runs, from
 * `GET /dashboard/{id}/state` and `GET /dashboard/{id}/picture`, which answer only to the
 * session's read-only view token (header `x-wf-view-token`; never the API key, which these routes
 * do not take). `GET /dashboard` lists a project's live sessions, from `GET /dashboard/sessions`,
 * which answers only to a project view token: read-only, expiring, minted by a key holder with
 * `POST /v1/dashboard/link` (the one route here that takes the key). The pages hold nothing:
 * without a valid token they show nothing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { parseInput } from "../../options.js";
import { DashboardLinkBodySchema } from "../answerSchemas.js";
import { answerJson } from "../answers.js";
import { ProjectTokens } from "../dashboard/projectTokens.js";
import { publicBase } from "../links.js";
import type { Session } from "../session.js";
import type { Sessions } from "../sessions.js";
import { listOf, pictureOf, viewOf } from "../sessionView.js";

const ASSETS = join(import.meta.dirname, "..", "dashboard");
const asset = (name: string) => readFileSync(join(ASSETS, name), "utf8");
const PAGE = asset("page.html");
const SCRIPT = asset("page.js");
const PROJECT_PAGE = asset("project.html");
const PROJECT_SCRIPT = asset("project.js");

const Params = z.object({ id: z.string().min(1).max(100) });
const StateQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  seen: z.coerce.number().int().min(0).default(0),
});

/** What the pages may do: their own script, their own requests, pictures they made themselves. */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** Answered without an API key: the pages hold nothing, their data answers to a view token. */
const PUBLIC = { config: { public: true } };

const digest = (text: string) => createHash("sha256").update(text).digest();

const nothing = (reply: FastifyReply, message: string) =>
  reply.code(404).header("cache-control", "no-store").send({ success: false, message });

export function dashboardRoutes(deps: {
  sessions: Sessions;
  publicUrl?: string | undefined;
  /** Shared mode: the project view lists one instance's sessions, so it is not offered. */
  shared?: boolean;
}): FastifyPluginAsync {
  const projectTokens = new ProjectTokens();

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
    nothing(reply, "Nothing to show: the link is not valid, or the session ended.");
    return undefined;
  };

  const page = (html: string) => (_request: FastifyRequest, reply: FastifyReply) =>
    reply.headers(PAGE_HEADERS).type("text/html; charset=utf-8").send(html);
  const script = (text: string) => (_request: FastifyRequest, reply: FastifyReply) =>
    reply.headers(PAGE_HEADERS).type("text/javascript; charset=utf-8").send(text);

  return async (app) => {
    app.get("/dashboard/page.js", PUBLIC, script(SCRIPT));
    app.get("/dashboard/project.js", PUBLIC, script(PROJECT_SCRIPT));
    app.get("/dashboard", PUBLIC, page(PROJECT_PAGE));
    app.get("/dashboard/:id", PUBLIC, page(PAGE));
    app.get("/dashboard/:id/state", PUBLIC, async (request, reply) => {
      const session = viewed(request, reply);
      if (!session) return reply;
      const query = StateQuery.safeParse(request.query ?? {}).data;
      const view = await viewOf(session, query?.after ?? 0, query?.seen ?? 0);
      return reply.header("cache-control", "no-store").send(view);
    });
    app.get("/dashboard/:id/picture", PUBLIC, async (request, reply) => {
      const session = viewed(request, reply);
      if (!session) return reply;
      const image = await pictureOf(session);
      if (!image) return reply.code(204).header("cache-control", "no-store").send();
      return reply.header("cache-control", "no-store").type("image/jpeg").send(image);
    });

    // The project's live sessions, to the project view token only.
    app.get("/dashboard/sessions", PUBLIC, async (request, reply) => {
      const checked = projectTokens.check(request.headers["x-wf-view-token"]);
      if ("refused" in checked) {
        return nothing(
          reply,
          checked.refused === "expired"
            ? `This link expired at ${new Date(checked.expiredAt).toISOString()}: its key holder can make a new one (POST /v1/dashboard/link).`
            : "Nothing to show: the link is not valid.",
        );
      }
      const own = deps.sessions.all().filter((s) => s.project === checked.project);
      return reply.header("cache-control", "no-store").send({
        project: checked.project,
        expiresAt: checked.expiresAt,
        sessions: listOf(own),
      });
    });

    // A key holder's link to the project view: the token in the fragment, never the key.
    app.post("/v1/dashboard/link", (request, reply) => {
      if (deps.shared) {
        return reply.code(501).send({
          success: false,
          message:
            "The project view lists the sessions of one instance: it is not offered in shared mode (REDIS_URL). Each session's own link (sessionUrl of /start) works on any instance.",
        });
      }
      return answerJson(reply, async () => {
        const body = parseInput(DashboardLinkBodySchema, request.body ?? {}, "dashboard link body");
        const ttlMs = body.expiresInSeconds * 1000;
        const { token, expiresAt } = projectTokens.mint(request.project, ttlMs);
        const base = publicBase(request, deps.publicUrl);
        return {
          url: `${base}/dashboard#token=${token}`,
          expiresAt: new Date(expiresAt).toISOString(),
        };
      });
    });
  };
}
