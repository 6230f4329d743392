/**
 * `GET /healthz` and `GET /health` (the process answers) and `GET /readyz` (it takes work), with
 * no key; the OpenAPI document.
 */
import type { FastifyPluginAsync } from "fastify";
import { openApiDocument } from "../openapi.js";

/** Answered without a key. */
const PUBLIC = { config: { public: true } };

export function healthRoutes(deps: { ready: () => boolean }): FastifyPluginAsync {
  return async (app) => {
    // Behind the key like every /v1 route.
    app.get("/v1/openapi.json", async () => openApiDocument());
    app.get("/healthz", PUBLIC, async () => ({ ok: true }));
    // The name the Python SDK's local mode polls last, after /readyz and /healthz.
    app.get("/health", PUBLIC, async () => ({ ok: true }));
    app.get("/readyz", PUBLIC, async (_request, reply) =>
      deps.ready()
        ? { ready: true }
        : reply.code(503).send({ ready: false, message: "shutting down" }),
    );
  };
}
