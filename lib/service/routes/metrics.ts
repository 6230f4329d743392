/**
 * `GET /metrics`: the Prometheus text of the service and its process. No API key: with
 * WAYFARER_METRICS_TOKEN set, that token as a Bearer credential (401 otherwise); without it, open
 * to whoever reaches the port (docs/guide/operations.md says when that is fine).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsync } from "fastify";
import type { ServiceMetrics } from "../metrics.js";

const digest = (text: string) => createHash("sha256").update(text).digest();

export function metricsRoutes(deps: {
  metrics: ServiceMetrics;
  token: string | undefined;
}): FastifyPluginAsync {
  const expected = deps.token === undefined ? undefined : digest(deps.token);
  return async (app) => {
    app.get("/metrics", { config: { public: true } }, async (request, reply) => {
      if (expected) {
        const given = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
        // Digests compared: the same length whatever was sent, and in constant time.
        if (!given || !timingSafeEqual(digest(given), expected)) {
          return reply.code(401).header("www-authenticate", 'Bearer realm="metrics"').send({
            success: false,
            message:
              "The metrics need the token set by WAYFARER_METRICS_TOKEN, as `Authorization: Bearer <token>`.",
          });
        }
      }
      return reply.type(deps.metrics.contentType).send(await deps.metrics.text());
    });
  };
}
