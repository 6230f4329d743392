/**
 * `GET /healthz` and `GET /health` (the process answers) and `GET /readyz` (it could start a
 * session now, and how much room is left), with no key; the OpenAPI document.
 */
import type { FastifyPluginAsync } from "fastify";
import type { Protections } from "../isolation.js";
import { openApiDocument } from "../openapi.js";

/** Answered without a key. */
const PUBLIC = { config: { public: true } };

/** What /readyz reads: whether the service is stopping, and its sessions' room. */
export interface Readiness {
  stopping: () => boolean;
  sessions: {
    readonly size: number;
    readonly room: number;
    readonly capacity: number;
    /** Browser users left to hand out; undefined: every browser runs as the service's user. */
    readonly usersLeft: number | undefined;
  };
  /** What this host gives a session's browser, decided at start-up (docs/architecture/security.md). */
  protections?: Protections;
}

/**
 * Whether a session could be started here now, and the room left; when not, why, for a load
 * balancer (503) and a person reading it. In shared mode a full instance still places a /start
 * on another, but the balancer had better send it elsewhere first.
 */
function readiness({ stopping, sessions, protections }: Readiness) {
  const counts = { live: sessions.size, capacity: sessions.capacity, room: sessions.room };
  const shown = protections ? { protections } : {};
  const not = (reason: string, message: string) => ({
    ready: false as const,
    reason,
    message,
    sessions: counts,
    ...shown,
  });
  if (stopping()) return not("stopping", "The service is shutting down.");
  if (sessions.room === 0) {
    return not(
      "full",
      `Every session slot is taken: ${sessions.capacity} at most (WAYFARER_MAX_SESSIONS).`,
    );
  }
  if (sessions.usersLeft === 0) {
    return not(
      "no browser user",
      "Every browser user of WAYFARER_BROWSER_USERS is taken by a session.",
    );
  }
  return { ready: true as const, sessions: counts, ...shown };
}

export function healthRoutes(deps: Readiness): FastifyPluginAsync {
  return async (app) => {
    app.get("/v1/openapi.json", PUBLIC, async () => openApiDocument());
    app.get("/healthz", PUBLIC, async () => ({ ok: true }));
    // The name the Python SDK's local mode polls last, after /readyz and /healthz.
    app.get("/health", PUBLIC, async () => ({ ok: true }));
    app.get("/readyz", PUBLIC, async (_request, reply) => {
      const state = readiness(deps);
      return state.ready ? state : reply.code(503).send(state);
    });
  };
}
