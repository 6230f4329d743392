/**
 * The HTTP service: browser sessions over the v1 protocol (DESIGN.md, "Wire protocol v1").
 * Wiring only: settings, keys and sessions are made here and handed to the routes.
 */
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { ServiceValidationError } from "../errors.js";
import { failureBody } from "./answers.js";
import { BrowserAccess } from "./browserAccess.js";
import type { ServiceConfig } from "./config.js";
import type { KeyRing } from "./keys.js";
import { RateLimit } from "./rateLimit.js";
import { dashboardRoutes } from "./routes/dashboard.js";
import { healthRoutes } from "./routes/health.js";
import { operationRoutes } from "./routes/operations.js";
import { platformRoutes } from "./routes/platform.js";
import { sessionRoutes } from "./routes/sessions.js";
import { FolderCacheStore } from "./serverCache.js";
import { Sessions } from "./sessions.js";

export interface Service {
  app: FastifyInstance;
  sessions: Sessions;
  /** Stops taking work, ends every session, closes the server. */
  close(): Promise<void>;
}

export function buildService(config: ServiceConfig, keys: KeyRing): Service {
  const app = Fastify({
    bodyLimit: config.bodyLimit,
    logger: false,
    // X-Forwarded-* are believed only from the proxies listed (or any, for "true").
    trustProxy: config.trustProxy,
  });
  const sessions = new Sessions(config);
  const limit = new RateLimit(config.ratePerMinute);
  let closing = false;

  // An empty body is an empty object (`/end` is sent without one); anything else must be JSON.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, text, done) => {
    if (text === "" || text === undefined) return done(null, {});
    try {
      done(null, JSON.parse(text as string));
    } catch {
      done(
        new ServiceValidationError("body", [{ path: [], message: "expected a JSON body" }]),
        undefined,
      );
    }
  });
  // Fastify's own refusals (a body too large: 413) keep their status, in our shape.
  app.setErrorHandler((error: unknown, _request, reply) => {
    const own = (error as { statusCode?: unknown }).statusCode;
    const status =
      error instanceof ServiceValidationError ? 400 : typeof own === "number" ? own : 500;
    reply.code(status).send(failureBody(error));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ success: false, message: `No route ${request.method} ${request.url}` });
  });

  // Every /v1 route needs a project's key (health and the dashboard, with its own token, do not).
  app.addHook("onRequest", async (request, reply) => {
    if (!request.url.startsWith("/v1/")) return;
    const header = request.headers["x-wf-api-key"] ?? request.headers["x-bb-api-key"];
    const project = keys.projectOf(typeof header === "string" ? header : undefined);
    if (!project) {
      return reply.code(401).send({
        success: false,
        message: "A valid API key is required in the x-wf-api-key header (or x-bb-api-key).",
      });
    }
    request.project = project;
    const wait = limit.take(project);
    if (wait !== undefined) {
      return reply
        .code(429)
        .header("retry-after", String(wait))
        .send({
          success: false,
          message: `Too many requests for this key's project: ${config.ratePerMinute} a minute (WAYFARER_RATE_LIMIT); try again in ${wait} s.`,
        });
    }
    if (closing) {
      return reply.code(503).send({ success: false, message: "The service is shutting down." });
    }
  });

  // Once stopping, each answer closes its connection, so none is kept alive behind it.
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });

  app.register(healthRoutes({ ready: () => !closing }));
  app.register(sessionRoutes({ sessions, config, keys }));
  const cache = config.serverCache
    ? new FolderCacheStore(join(config.dataDir, "cache"))
    : undefined;
  app.register(operationRoutes({ sessions, rule: config.rule, cache }));
  const access = new BrowserAccess(sessions);
  access.attach(app.server);
  app.register(platformRoutes({ sessions, access, publicUrl: config.publicUrl }));
  // Behind the session's view token, not an API key.
  app.register(dashboardRoutes({ sessions }));

  return {
    app,
    sessions,
    async close() {
      closing = true;
      await sessions.endAll();
      // Every operation is answered by now; a client's kept-alive connection must not hold the
      // exit (app.close() ends only the idle ones, once, when it starts).
      const stragglers = setTimeout(() => app.server.closeAllConnections(), 1_000);
      await app.close();
      clearTimeout(stragglers);
    },
  };
}

declare module "fastify" {
  interface FastifyRequest {
    /** The project of the request's API key (set by the auth hook on /v1 routes). */
    project: string;
  }
}
