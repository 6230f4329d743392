/**
 * The server cache in Redis, shared by every instance: the same entries as the folder store
 * (the key names the call and the page's outline digest), each kept for a week after it was
 * written. Redis away: a miss, and the answer is not kept; the call itself is never failed.
 */
import type { Redis } from "ioredis";
import type { ServerCacheStore } from "../serverCache.js";

const TTL_SECONDS = 7 * 24 * 3600;
const key = (k: string) => `wayfarer:cache:${k}`;

export class RedisCacheStore implements ServerCacheStore {
  constructor(private readonly redis: Redis) {}

  async get(k: string): Promise<unknown | undefined> {
    const text = await this.redis.get(key(k)).catch(() => null);
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  async put(k: string, value: unknown): Promise<void> {
    await this.redis.set(key(k), JSON.stringify(value), "EX", TTL_SECONDS).catch(() => {});
  }
}
