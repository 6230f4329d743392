/**
 * The projects' counts kept in Redis, so that each limit holds across instances (quotas.ts has
 * the rules).
 *
 * Sessions: one sorted set per project, `wayfarer:slots:{project}`, a member per session scored
 * with the moment it stops counting, on Redis's clock. The instance that holds a session renews
 * it four times per TTL; the sessions of an instance that dies stop counting a TTL later, when
 * the next take sweeps them out. Taking a slot is one script: sweep, count, add, atomically.
 *
 * Tokens: a counter per project and window (`wayfarer:tokens:{project}:minute:{start}` and
 * `…:day:{start}`), INCRBY, expiring with its window.
 *
 * Redis away: this instance counts alone until it is back (its own sessions, its own tokens),
 * rather than refusing every project or none; the next renewal writes its sessions back.
 */
import type { Redis } from "ioredis";
import {
  LocalSlots,
  LocalTokens,
  type SlotCounter,
  type Spent,
  type TokenCounter,
  windowStart,
} from "../quotas.js";

const KEY = {
  slots: (project: string) => `wayfarer:slots:${project}`,
  tokens: (project: string, window: "minute" | "day", start: number) =>
    `wayfarer:tokens:${project}:${window}:${start}`,
};

const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS[1] the project's set; ARGV max, ttl ms, session id. 1: counted; 0: the project is full. */
const TAKE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1`;

/** KEYS the sessions' sets, one per session; ARGV ttl ms, then the session ids in KEYS' order. */
const RENEW = `${NOW_MS}
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + tonumber(ARGV[1]), ARGV[i + 1])
  redis.call('PEXPIRE', key, tonumber(ARGV[1]))
end
return #KEYS`;

interface SlotScripts {
  wayfarerTakeSlot(key: string, max: number, ttlMs: number, id: string): Promise<number>;
  wayfarerRenewSlots(keys: number, ...args: (string | number)[]): Promise<number>;
}

export class SharedSlots implements SlotCounter {
  /** Every session this instance holds, whichever way it was counted (renewed from here). */
  private readonly alone = new LocalSlots();
  private readonly renewal: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
  ) {
    redis.defineCommand("wayfarerTakeSlot", { numberOfKeys: 1, lua: TAKE });
    redis.defineCommand("wayfarerRenewSlots", { lua: RENEW });
    this.renewal = setInterval(() => void this.renew(), Math.max(250, ttlMs / 4));
    this.renewal.unref();
    // Redis back after a restart (maybe empty): this instance's sessions count again at once.
    redis.on("ready", () => void this.renew());
  }

  private get scripts(): SlotScripts {
    return this.redis as unknown as SlotScripts;
  }

  async take(project: string, sessionId: string, max: number): Promise<boolean> {
    let taken: number;
    try {
      taken = await this.scripts.wayfarerTakeSlot(KEY.slots(project), max, this.ttlMs, sessionId);
    } catch {
      return this.alone.take(project, sessionId, max);
    }
    if (taken === 1) this.alone.take(project, sessionId, Number.POSITIVE_INFINITY);
    return taken === 1;
  }

  release(sessionId: string): void {
    const project = this.alone.projectOf(sessionId);
    this.alone.release(sessionId);
    if (project !== undefined) this.redis.zrem(KEY.slots(project), sessionId).catch(() => {});
  }

  /** Stops renewing (the instance's sessions have ended and been released by now). */
  close(): void {
    clearInterval(this.renewal);
  }

  private async renew(): Promise<void> {
    const held = this.alone.entries();
    if (!held.length) return;
    const keys = held.map(([, project]) => KEY.slots(project));
    const ids = held.map(([id]) => id);
    await this.scripts
      .wayfarerRenewSlots(keys.length, ...keys, this.ttlMs, ...ids)
      .catch(() => undefined);
  }
}

export class SharedTokens implements TokenCounter {
  /** What this instance spent, counted when Redis is away. */
  private readonly alone = new LocalTokens();

  constructor(private readonly redis: Redis) {}

  async spent(project: string, now: number): Promise<Spent> {
    try {
      const [minute, day] = await this.redis.mget(...keysOf(project, now));
      return { minute: Number(minute) || 0, day: Number(day) || 0 };
    } catch {
      return this.alone.spent(project, now);
    }
  }

  add(project: string, tokens: number, now: number): void {
    this.alone.add(project, tokens, now);
    const [minute, day] = keysOf(project, now);
    this.redis
      .multi()
      .incrby(minute, tokens)
      .pexpire(minute, 61_000)
      .incrby(day, tokens)
      .pexpire(day, 86_460_000)
      .exec()
      .catch(() => {});
  }
}

function keysOf(project: string, now: number): [minute: string, day: string] {
  return [
    KEY.tokens(project, "minute", windowStart(now, 60_000)),
    KEY.tokens(project, "day", windowStart(now, 86_400_000)),
  ];
}
