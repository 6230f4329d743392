/**
 * Requests per minute per project, counted in fixed one-minute windows: the shape a shared
 * counter (Redis INCR with an expiry, shared/sharedRateLimit.ts) keeps across instances.
 */
export interface Limiter {
  /** Counts a request; the seconds to wait when it is over the limit, else undefined. */
  take(who: string): number | undefined | Promise<number | undefined>;
}

export class RateLimit implements Limiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  /** Counts a request; the seconds to wait when it is over the limit, else undefined. */
  take(who: string, now = Date.now()): number | undefined {
    const start = now - (now % 60_000);
    const window = this.windows.get(who);
    if (!window || window.start !== start) {
      if (this.windows.size > 10_000) this.windows.clear();
      this.windows.set(who, { start, count: 1 });
      return undefined;
    }
    window.count++;
    if (window.count <= this.perMinute) return undefined;
    return Math.ceil((start + 60_000 - now) / 1000);
  }
}
