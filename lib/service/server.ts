/**
 * The HTTP service: browser sessions over the v1 protocol (DESIGN.md, "Wire protocol v1").
 * Wiring only: settings, keys and sessions are made here and handed to the routes.
 */
import { hostname } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { deepBodyRefusal } from "../api/nesting.js";
import { ServiceValidationError } from "../errors.js";
import { failureBody } from "./answers.js";
import { BrowserAccess } from "./browserAccess.js";
import type { ServiceConfig } from "./config.js";
import { ContextStore } from "./contextStore.js";
import { protectionsOf } from "./isolation.js";
import type { KeyRing } from "./keys.js";
import { publicBase } from "./links.js";
import { ServiceMetrics } from "./metrics.js";
import { RateLimit } from "./rateLimit.js";
import { failureLine, requestIdOf, tagRequest } from "./requestId.js";
import { canonicalTarget } from "./requestTarget.js";
import { apiDocsRoutes } from "./routes/apiDocs.js";
import { contextRoutes } from "./routes/contexts.js";
import { dashboardRoutes } from "./routes/dashboard.js";
import { frontRoutes } from "./routes/front.js";
import { healthRoutes } from "./routes/health.js";
import { mcpRoutes } from "./routes/mcp.js";
import { metricsRoutes } from "./routes/metrics.js";
import { operationRoutes } from "./routes/operations.js";
import { platformRoutes } from "./routes/platform.js";
import { sessionRoutes } from "./routes/sessions.js";
import { FolderCacheStore } from "./serverCache.js";
import { Sessions } from "./sessions.js";
import { type Cluster, sessionInPath } from "./shared/cluster.js";

export interface Service {
  app: FastifyInstance;
  /** Every route, as registered: what the key check is decided on. */
  routes: { method: string; url: string; public: boolean }[];
  sessions: Sessions;
  /** Its Prometheus registry and instruments (`GET /metrics`). */
  metrics: ServiceMetrics;
  /** Listens, and in shared mode registers this instance by the address it got. */
  listen(host: string, port: number): Promise<string>;
  /** Stops taking work, ends every session, closes the server. */
  close(): Promise<void>;
}

/** `cluster`: shared mode (REDIS_URL), joined before the service is built. */
export function buildService(config: ServiceConfig, keys: KeyRing, cluster?: Cluster): Service {
  const app = Fastify({
    bodyLimit: config.bodyLimit,
    logger: false,
    // X-Forwarded-* are believed only from the proxies listed (or any, for "true").
    trustProxy: config.trustProxy,
    genReqId: requestIdOf,
    // Before routing: the one spelling of the target, or a refusal answered by the hook below.
    rewriteUrl: (raw) => {
      const target = canonicalTarget(raw.url ?? "/");
      if ("refused" in target) {
        refusedTargets.set(raw, target.refused);
        return "/";
      }
      return `${target.path}${target.query}`;
    },
  });
  const metrics = new ServiceMetrics({
    memoryLimitMb: config.limits.browserMaxMemoryMb,
    shared: cluster !== undefined,
  });
  const contexts = new ContextStore(join(config.dataDir, "contexts"), cluster !== undefined);
  const sessions = new Sessions(
    config,
    cluster && { newId: () => cluster.newSessionId(), watcher: cluster },
    metrics,
    contexts,
  );
  const routes: Service["routes"] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      // Read when asked: a plugin's own onRoute hook (the API docs') marks its routes after this one ran.
      routes.push({
        method,
        url: route.url,
        get public() {
          return route.config?.public === true;
        },
      });
    }
  });
  const limit = cluster?.limit ?? new RateLimit(config.ratePerMinute);
  let closing = false;

  // An empty body is an empty object (`/end` is sent without one); anything else must be JSON.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, text, done) => {
    if (text === "" || text === undefined) return done(null, {});
    let body: unknown;
    try {
      body = JSON.parse(text as string);
    } catch {
      return done(
        new ServiceValidationError("body", [{ path: [], message: "expected a JSON body" }]),
        undefined,
      );
    }
    // Before any route or forward walks it: a body nested thousands deep never reaches a
    // recursive walk (a JSON.stringify on the way to another instance, say).
    const tooDeep = deepBodyRefusal(body);
    if (tooDeep) return done(tooDeep, undefined);
    done(null, body);
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

  // First: every answer, a refusal too, carries the request's id.
  app.addHook("onRequest", tagRequest);
  // Counted once answered; a failure that is the service's own is also told to its log (not a
  // 503: full or stopping is the gauges' to tell).
  const secrets = [...keys.secrets, ...(cluster?.secrets ?? []), config.metricsToken ?? ""];
  app.addHook("onResponse", async (request, reply) => {
    const answered = metrics.answered(request, reply);
    if (answered && answered.status >= 500 && answered.status !== 503) {
      config.warn(failureLine(request, answered, secrets));
    }
  });

  // Every route needs a project's key but the few marked public (`config: { public: true }`),
  // decided on the route the router matched, never on the URL's spelling.
  app.addHook("onRequest", async (request, reply) => {
    const refused = refusedTargets.get(request.raw);
    if (refused !== undefined) {
      return reply.code(400).send({
        success: false,
        message: `The request-target is refused (${refused}): send the path in its plain form, e.g. /v1/sessions/start.`,
      });
    }
    if (request.routeOptions.config.public === true) {
      // The dashboard's data of another instance's session: its owner answers (to its token).
      const viewed = cluster && sessionInPath(request.url);
      if (viewed) {
        const base = publicBase(request, config.publicUrl);
        await cluster.routeRequest(viewed, request.raw, reply.raw, () => reply.hijack(), base);
      }
      return;
    }
    const bearer = request.routeOptions.config.bearer === true;
    const header =
      request.headers["x-wf-api-key"] ??
      request.headers["x-bb-api-key"] ??
      (bearer ? bearerOf(request.headers.authorization) : undefined);
    const project = keys.projectOf(typeof header === "string" ? header : undefined);
    if (!project && bearer) {
      return reply.code(401).header("www-authenticate", "Bearer").send({
        success: false,
        message:
          "A valid API key is required: Authorization: Bearer <key>, or the x-wf-api-key header.",
      });
    }
    if (!project) {
      return reply.code(401).send({
        success: false,
        message: "A valid API key is required in the x-wf-api-key header (or x-bb-api-key).",
      });
    }
    request.project = project;
    const forwarded = cluster?.isForwarded(request.raw) === true;
    if (forwarded) request.forwardedBase = cluster?.publicBaseOf(request.raw);
    // Counted once, by the instance the caller reached.
    const wait = forwarded ? undefined : await limit.take(project);
    if (wait !== undefined) {
      metrics.refused(project, "WAYFARER_RATE_LIMIT");
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
    // Another instance's session: its owner answers, through this one.
    const named = cluster && (sessionInPath(request.url) ?? mcpSessionOf(request));
    if (named) {
      const base = publicBase(request, config.publicUrl);
      await cluster.routeRequest(named, request.raw, reply.raw, () => reply.hijack(), base);
    }
  });

  // Once stopping, each answer closes its connection, so none is kept alive behind it.
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });

  const access = new BrowserAccess(sessions, cluster);
  app.register(
    healthRoutes({
      stopping: () => closing,
      sessions,
      protections: protectionsOf(
        sessions.browserUsers.plan,
        config.limits.browserMaxMemoryMb,
        config.allowUnsandboxed === true,
      ),
    }),
  );
  metrics.observe({
    sessions,
    cdpConnections: () => access.openConnections,
    ...(cluster ? { peers: () => cluster.peers() } : {}),
  });
  app.register(metricsRoutes({ metrics, token: config.metricsToken }));
  app.register(sessionRoutes({ sessions, config, keys, cluster, access }));
  const folderCache =
    config.serverCache && !cluster
      ? new FolderCacheStore(join(config.dataDir, "cache"), config.cacheLimits)
      : undefined;
  const store = !config.serverCache ? undefined : (cluster?.cache ?? folderCache);
  const cache = store && metrics.countedCache(store);
  app.register(operationRoutes({ sessions, rule: config.rule, cache }));
  access.attach(app.server);
  app.register(platformRoutes({ sessions, access, publicUrl: config.publicUrl }));
  app.register(contextRoutes({ contexts }));
  // Behind view tokens (a session's, a project's); minting a project's link takes the key.
  app.register(
    dashboardRoutes({ sessions, publicUrl: config.publicUrl, shared: cluster !== undefined }),
  );
  // Public: what the service is, and its API reference.
  app.register(frontRoutes({ publicUrl: config.publicUrl }));
  app.register(apiDocsRoutes());
  app.register(
    mcpRoutes({
      sessions,
      config,
      cluster,
      metrics,
      secrets: () => [...keys.secrets, ...(cluster?.secrets ?? [])],
    }),
  );

  return {
    app,
    routes,
    sessions,
    metrics,
    async listen(host, port) {
      await sessions.beforeListening();
      const address = await app.listen({ host, port });
      await cluster?.announce(internalAddress(address, host), sessions);
      // Warm browsers once the service listens: a cold start is not slowed by their launch.
      sessions.warmUp();
      return address;
    },
    async close() {
      closing = true;
      await sessions.endAll();
      await folderCache?.close();
      await cluster?.close();
      // Every operation is answered by now; a client's kept-alive connection must not hold the
      // exit (app.close() ends only the idle ones, once, when it starts).
      const stragglers = setTimeout(() => app.server.closeAllConnections(), 1_000);
      await app.close();
      clearTimeout(stragglers);
    },
  };
}

/** The key of `Authorization: Bearer <key>` (routes marked `bearer`: /mcp, as MCP clients send it). */
function bearerOf(authorization: string | undefined): string | undefined {
  return authorization?.match(/^Bearer[ \t]+(\S+)[ \t]*$/i)?.[1];
}

/** The MCP session a /mcp request names: its session's id, which names its owner. */
function mcpSessionOf(request: FastifyRequest): string | undefined {
  if (request.routeOptions.url !== "/mcp") return undefined;
  const id = request.headers["mcp-session-id"];
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** Targets refused before routing, with the reason, for the auth hook to answer. */
const refusedTargets = new WeakMap<object, string>();

/** The bound address as the other instances reach it (a wildcard bind: this machine's name). */
function internalAddress(address: string, host: string): string {
  if (host !== "0.0.0.0" && host !== "::") return address;
  const url = new URL(address);
  url.hostname = hostname();
  return url.origin;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Answered without an API key (health, the dashboard behind its own token). */
    public?: boolean;
    /** Also takes the key as `Authorization: Bearer` (a 401 says `WWW-Authenticate: Bearer`). */
    bearer?: boolean;
  }
  interface FastifyRequest {
    /** The project of the request's API key (set by the auth hook on /v1 routes). */
    project: string;
    /** Shared mode: the public base of a request another instance forwarded. */
    forwardedBase?: string;
  }
}
