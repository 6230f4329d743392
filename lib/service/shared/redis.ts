/**
 * The Redis connection of shared mode. Reaching Redis at start is required (a clear error
 * within 5 s otherwise); afterwards a lost connection is retried for ever, commands fail at
 * once while it is down (no queue that would make requests wait) and within a second when it
 * does not answer, so callers fall back.
 */
import type { Redis } from "ioredis";
import { ServiceError } from "../../errors.js";

const CONNECT_MS = 5_000;

/** Where Redis is, without its password: the only form that may be shown. */
export function redisAddress(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return "the REDIS_URL given";
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port || "6379"}${parsed.pathname === "/" ? "" : parsed.pathname}`;
}

export class RedisUnreachable extends ServiceError {
  override name = "RedisUnreachable";
}

export async function connectRedis(url: string): Promise<Redis> {
  // Imported here, in shared mode only: a service on one machine never loads the client.
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, {
    lazyConnect: true,
    connectionName: "wayfarer",
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Back again within two seconds of Redis coming back, whenever that is.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  // Errors while reconnecting are expected and handled by the callers' fallbacks.
  redis.on("error", () => {});
  const timer = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`no answer in ${CONNECT_MS / 1000} s`)), CONNECT_MS).unref(),
  );
  try {
    await Promise.race([redis.connect().then(() => redis.ping()), timer]);
  } catch (error) {
    redis.disconnect();
    const why = error instanceof Error ? error.message : String(error);
    throw new RedisUnreachable(
      `Could not reach Redis at ${redisAddress(url)} (REDIS_URL): ${why.replace(url, redisAddress(url))}. Start it, or unset REDIS_URL for one machine with embedded state.`,
    );
  }
  return redis;
}
