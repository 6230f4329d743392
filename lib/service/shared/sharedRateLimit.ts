/**
 * The per-project rate limit counted in Redis, so it holds across instances: one counter per
 * project and one-minute window (INCR, expiring with the window). Redis away: this instance
 * counts alone until it is back, rather than refusing every request or none.
 */
import type { Redis } from "ioredis";
import { type Limiter, RateLimit } from "../rateLimit.js";

export class SharedRateLimit implements Limiter {
  private readonly alone: RateLimit;

  constructor(
    private readonly redis: Redis,
    private readonly perMinute: number,
  ) {
    this.alone = new RateLimit(perMinute);
  }

  async take(who: string, now = Date.now()): Promise<number | undefined> {
    const start = now - (now % 60_000);
    const counter = `wayfarer:rate:${who}:${start}`;
    try {
      const answers = await this.redis.multi().incr(counter).pexpire(counter, 61_000).exec();
      const count = Number(answers?.[0]?.[1]);
      if (!Number.isFinite(count)) throw new Error("no count");
      if (count <= this.perMinute) return undefined;
      return Math.ceil((start + 60_000 - now) / 1000);
    } catch {
      return this.alone.take(who, now);
    }
  }
}
