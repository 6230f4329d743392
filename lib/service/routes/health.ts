/** `GET /healthz` (the process answers) and `GET /readyz` (it takes work), with no key. */
import type { FastifyPluginAsync } from "fastify";

export function healthRoutes(deps: { ready: () => boolean }): FastifyPluginAsync {
  return async (app) => {
    app.get("/healthz", async () => ({ ok: true }));
    app.get("/readyz", async (_request, reply) =>
      deps.ready()
        ? { ready: true }
        : reply.code(503).send({ ready: false, message: "shutting down" }),
    );
  };
}
