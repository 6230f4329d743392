/**
 * `GET /healthz` (the process answers) and `GET /readyz` (it takes work), with no key; the
 * OpenAPI document.
 */
import type { FastifyPluginAsync } from "fastify";
import { openApiDocument } from "../openapi.js";

export function healthRoutes(deps: { ready: () => boolean }): FastifyPluginAsync {
  return async (app) => {
    // Behind the key like every /v1 route.
    app.get("/v1/openapi.json", async () => openApiDocument());
    app.get("/healthz", async () => ({ ok: true }));
    app.get("/readyz", async (_request, reply) =>
      deps.ready()
        ? { ready: true }
        : reply.code(503).send({ ready: false, message: "shutting down" }),
    );
  };
}
