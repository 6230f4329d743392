/**
 * Shared mode (REDIS_URL): this instance as one of several sharing Redis. It keeps the server
 * cache and the rate-limit counters there, registers its sessions, and answers for any
 * session: a request (HTTP, SSE, the CDP WebSocket, the dashboard's) for a session another
 * instance owns is forwarded to that owner; a `/start` that finds this instance full is placed
 * on one with room. A forwarded request carries a token only the instances know (a secret kept
 * in Redis), so the owner neither counts it against the rate limit again nor forwards it on.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Redis } from "ioredis";
import { failureBody, statusOf } from "../answers.js";
import type { SharedConfig } from "../config.js";
import type { ServerCacheStore } from "../serverCache.js";
import { OwnerUnreachable, SessionGone } from "../serviceErrors.js";
import type { Session } from "../session.js";
import type { Sessions, SessionWatcher } from "../sessions.js";
import { type ForwardOutcome, forward, forwardUpgrade, listening } from "./forward.js";
import { connectRedis } from "./redis.js";
import { RedisCacheStore } from "./redisCache.js";
import { type InstanceView, Registry, type Route } from "./registry.js";
import { newInstanceId, newSessionId } from "./sessionIds.js";
import { SharedSlots, SharedTokens } from "./sharedQuotas.js";
import { SharedRateLimit } from "./sharedRateLimit.js";

const FORWARDED = "x-wf-forwarded";
/** The base URL the caller reached the first instance by: links made on the owner use it. */
const PUBLIC_BASE = "x-wf-public-base";
const SECRET_KEY = "wayfarer:forward-secret";

const digest = (text: string) => createHash("sha256").update(text).digest();

/** The session a path is about: `/v1/sessions/{id}[/…]` (not start) or the dashboard's data. */
export function sessionInPath(url: string): string | undefined {
  const path = url.split("?", 1)[0] ?? "";
  const m =
    path.match(/^\/v1\/sessions\/([^/]+)(?:\/[^/]+)?$/) ??
    path.match(/^\/dashboard\/([^/]+)\/(?:state|picture)$/);
  let id: string | undefined;
  try {
    id = m?.[1] ? decodeURIComponent(m[1]) : undefined;
  } catch {
    // Not valid percent-encoding: no session of ours; the route answers it.
    return undefined;
  }
  return id === "start" ? undefined : id;
}

export class Cluster implements SessionWatcher {
  readonly instanceId = newInstanceId();
  readonly cache: ServerCacheStore;
  readonly limit: SharedRateLimit;
  /** The projects' sessions and tokens, counted across instances. */
  readonly counters: { slots: SharedSlots; tokens: SharedTokens };
  /** The token forwarded requests carry: a secret only the instances know, kept in Redis. */
  private token = "";
  /** The current token and the one before (Redis restarted empty and another was made). */
  private readonly tokens: Buffer[] = [];
  private registry: Registry | undefined;

  private constructor(
    private readonly config: SharedConfig,
    private readonly redis: Redis,
    ratePerMinute: number,
  ) {
    this.cache = new RedisCacheStore(redis, config.cacheLimits);
    this.limit = new SharedRateLimit(redis, ratePerMinute);
    this.counters = {
      slots: new SharedSlots(redis, config.instanceTtlMs),
      tokens: new SharedTokens(redis),
    };
  }

  /** Connects to Redis (a clear error when it cannot be reached) before anything listens. */
  static async join(config: SharedConfig, ratePerMinute: number): Promise<Cluster> {
    const redis = await connectRedis(config.redisUrl);
    const cluster = new Cluster(config, redis, ratePerMinute);
    await cluster.readSecret();
    // Redis back, maybe empty: the secret is read (or made) again.
    redis.on("ready", () => void cluster.readSecret().catch(() => {}));
    return cluster;
  }

  /** The instances' shared secret: the first instance makes it, every other reads it. */
  private async readSecret(): Promise<void> {
    await this.redis.set(SECRET_KEY, randomBytes(32).toString("hex"), "NX");
    const secret = await this.redis.get(SECRET_KEY);
    if (!secret || secret === this.token) return;
    this.token = secret;
    this.tokens.unshift(digest(secret));
    this.tokens.splice(2);
  }

  /** Secrets of shared mode the service's loggers must never show. */
  get secrets(): string[] {
    return [this.token, this.config.redisUrl];
  }

  private forwardHeaders(publicBase: string): Record<string, string> {
    return { [FORWARDED]: this.token, [PUBLIC_BASE]: publicBase };
  }

  newSessionId(): string {
    return newSessionId(this.instanceId);
  }

  /** Registers this instance, reachable at `boundUrl` unless WAYFARER_INTERNAL_URL says otherwise. */
  async announce(boundUrl: string, sessions: Sessions): Promise<void> {
    const url = this.config.internalUrl ?? boundUrl;
    this.registry = new Registry(
      this.redis,
      {
        id: this.instanceId,
        url,
        room: () => sessions.room,
        sessions: () => sessions.all(),
      },
      this.config.instanceTtlMs,
    );
    await this.registry.start();
  }

  /** The other live instances, as their last heartbeats said (the cluster's metrics). */
  peers(): InstanceView[] {
    return this.registry?.peers() ?? [];
  }

  started(session: Session): void {
    this.registry?.started(session);
  }

  ended(session: Session): void {
    this.registry?.ended(session);
  }

  /** The request came from another instance of this cluster (it was counted and routed there). */
  isForwarded(request: IncomingMessage): boolean {
    const given = request.headers[FORWARDED];
    if (typeof given !== "string" || !given) return false;
    const seen = digest(given);
    // Both compared, whichever matches.
    return this.tokens.map((t) => timingSafeEqual(seen, t)).includes(true);
  }

  /** The base URL a forwarded request's caller reached the first instance by (ask isForwarded first). */
  publicBaseOf(request: IncomingMessage): string | undefined {
    const base = request.headers[PUBLIC_BASE];
    return typeof base === "string" ? base : undefined;
  }

  /**
   * Forwards the request when another instance owns the session it names; false when it is for
   * this instance to answer. `body` is given when the request's body was read already.
   */
  async routeRequest(
    sessionId: string,
    request: IncomingMessage,
    response: ServerResponse,
    hijack: () => void,
    publicBase: string,
    body?: unknown,
  ): Promise<boolean> {
    if (!this.registry || this.isForwarded(request)) return false;
    const route = await this.registry.route(sessionId);
    if (route.kind === "here") return false;
    hijack();
    if (route.kind !== "owner") {
      fail(response, this.failureOf(sessionId, route));
      return true;
    }
    const watch = this.watch(route.instance);
    const outcome = await forward({
      base: route.instance.url,
      request,
      response,
      signal: watch.signal,
      headers: this.forwardHeaders(publicBase),
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
    }).finally(watch.stop);
    await this.afterForward(route.instance, outcome, sessionId, response);
    return true;
  }

  /**
   * Aborts while a forward waits on an owner whose entry is gone from Redis and whose address
   * no longer answers (it died, or a partition cut it off): its caller is answered, not left
   * waiting on a connection nobody will close.
   */
  private watch(owner: InstanceView): { signal: AbortSignal; stop: () => void } {
    const gone = new AbortController();
    const timer = setInterval(
      async () => {
        if (this.registry?.isListed(owner.id)) return;
        if ((await listening(owner.url)) !== true) gone.abort();
      },
      Math.max(500, this.config.instanceTtlMs / 2),
    );
    timer.unref();
    return { signal: gone.signal, stop: () => clearInterval(timer) };
  }

  /** The CDP WebSocket of another instance's session, joined to the owner's; false: ours. */
  async routeUpgrade(
    sessionId: string,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
  ): Promise<boolean> {
    if (!this.registry) return false;
    const route = await this.registry.route(sessionId);
    if (route.kind === "here") return false;
    const outcome =
      route.kind === "owner"
        ? await this.verdict(
            route.instance,
            await forwardUpgrade(route.instance.url, request, socket, head),
          )
        : route.kind;
    if (outcome === "gone") socket.end("HTTP/1.1 410 Gone\r\nconnection: close\r\n\r\n");
    if (outcome === "unknown") socket.end("HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n");
    return true;
  }

  /**
   * A `/start` this instance has no room for, placed on another with room (the roomiest first;
   * one that turns out full is passed over). False when none took it.
   */
  async place(
    request: IncomingMessage,
    response: ServerResponse,
    hijack: () => void,
    publicBase: string,
    body: unknown,
  ): Promise<boolean> {
    if (!this.registry || this.isForwarded(request)) return false;
    const bytes = Buffer.from(JSON.stringify(body ?? {}));
    for (const instance of this.registry.withRoom()) {
      const outcome = await forward({
        base: instance.url,
        request,
        response,
        body: bytes,
        // Only an instance that takes the session answers: one that is full is passed over.
        claim: hijack,
        headers: this.forwardHeaders(publicBase),
        passOn503: true,
      });
      if (outcome === "relayed") return true;
      if (outcome === "refused") this.registry.markDead(instance.id);
    }
    return false;
  }

  /** Leaves the registry and Redis (after every session of this instance has ended). */
  async close(): Promise<void> {
    this.counters.slots.close();
    await this.registry?.close();
    // quit: the last session-ended events and deletions are answered before the connection ends.
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** After a forward that got no answer, the failure it is answered with. */
  private async afterForward(
    owner: InstanceView,
    outcome: ForwardOutcome,
    sessionId: string,
    response: ServerResponse,
  ): Promise<void> {
    const verdict = await this.verdict(owner, outcome);
    if (verdict === "answered") return;
    if (verdict === "gone") {
      fail(response, this.failureOf(sessionId, { kind: "gone", instance: owner.id }));
      return;
    }
    fail(
      response,
      new OwnerUnreachable(
        `The instance that holds session ${sessionId} (${owner.id}) could not be reached; try again.`,
      ),
    );
  }

  /**
   * What a forward's outcome says of its owner: it answered, it is gone (its port refuses, also
   * when the connection was cut mid-request by a kill; it is marked dead), or it could not be
   * reached.
   */
  private async verdict(
    owner: InstanceView,
    outcome: ForwardOutcome,
  ): Promise<"answered" | "gone" | "unknown"> {
    if (outcome === "relayed" || outcome === "full") return "answered";
    if (outcome === "refused" || (await listening(owner.url)) === false) {
      this.registry?.markDead(owner.id);
      return "gone";
    }
    return "unknown";
  }

  private failureOf(sessionId: string, route: Exclude<Route, { kind: "here" | "owner" }>) {
    return route.kind === "gone"
      ? new SessionGone(
          `The session ${sessionId} is gone: the instance that held it (${route.instance}) stopped, and its browser with it. Start a new session.`,
        )
      : new OwnerUnreachable(
          `The instance that holds session ${sessionId} (${route.instance}) cannot be located now (Redis is unreachable); try again.`,
        );
  }
}

function fail(response: ServerResponse, error: SessionGone | OwnerUnreachable): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const status = statusOf(error);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    // Not reached now, maybe in a moment: the remote client retries a GET on 502.
    ...(status === 502 ? { "retry-after": "1" } : {}),
  });
  response.end(JSON.stringify(failureBody(error)));
}
