/**
 * The server cache in Redis, shared by every instance: the same sealed entries as the folder
 * store, under the same caps. The secret is made once in Redis (SET NX, as the forward token
 * is), so every instance seals and opens with the same one.
 *
 * Bookkeeping, changed only inside Lua scripts (atomic, so instances never miscount): a sorted
 * set of key → last use, a hash of key → bytes and a running total. A put evicts entries unused
 * for longer than the age limit, then the least recently used, until the total fits. Each entry
 * also expires by itself after the age limit (its bytes stay counted until evicted, so the total
 * can only overstate what Redis holds). Scripts name entry keys they evict themselves: a single
 * Redis, as shared mode uses, not Redis Cluster. Redis away: a miss, and the answer is not kept;
 * the call itself is never failed.
 */
import type { Redis } from "ioredis";
import { CacheSeal, newSecret, secretOf } from "../cacheSeal.js";
import type { CacheLimits, ServerCacheStore } from "../serverCache.js";

const PREFIX = "wayfarer:cache:";
const SECRET = "wayfarer:cache-secret";
const LRU = "wayfarer:cache-lru";
const SIZES = "wayfarer:cache-sizes";
const TOTAL = "wayfarer:cache-bytes";

/** Takes an entry out: its value, its last use, its bytes from the total. ARGV[1]: the prefix. */
const DROP = `
local function drop(member)
  redis.call('DEL', ARGV[1] .. member)
  local bytes = redis.call('HGET', KEYS[2], member)
  if bytes then redis.call('DECRBY', KEYS[3], bytes) end
  redis.call('HDEL', KEYS[2], member)
  redis.call('ZREM', KEYS[1], member)
end
`;

/** KEYS: lru, sizes, total. ARGV: prefix, member, entry, bytes, now, maxAgeMs, maxBytes. */
const PUT = `${DROP}
local member, now, age = ARGV[2], tonumber(ARGV[5]), tonumber(ARGV[6])
drop(member)
redis.call('SET', ARGV[1] .. member, ARGV[3], 'PX', age)
redis.call('HSET', KEYS[2], member, ARGV[4])
redis.call('INCRBY', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[1], now, member)
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - age)) do drop(old) end
while tonumber(redis.call('GET', KEYS[3]) or '0') > tonumber(ARGV[7]) do
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)
  if #oldest == 0 then break end
  drop(oldest[1])
end
`;

/** KEYS: lru. ARGV: prefix, member, maxEntryBytes, now. The entry, touched; -1: too large. */
const GET = `
local entry = redis.call('GET', ARGV[1] .. ARGV[2])
if not entry then return false end
if string.len(entry) > tonumber(ARGV[3]) then return -1 end
redis.call('ZADD', KEYS[1], 'XX', ARGV[4], ARGV[2])
return entry
`;

/** KEYS: lru, sizes, total. ARGV: prefix, member. */
const REMOVE = `${DROP}
drop(ARGV[2])
`;

export class RedisCacheStore implements ServerCacheStore {
  private seal: Promise<CacheSeal | undefined>;

  constructor(
    private readonly redis: Redis,
    private readonly limits: CacheLimits,
  ) {
    this.seal = this.readSecret();
    // Redis back, maybe empty: the secret is read (or made) again, the same for every instance.
    redis.on("ready", () => {
      this.seal = this.readSecret();
    });
  }

  async get(key: string): Promise<unknown | undefined> {
    const seal = await this.currentSeal();
    if (!seal) return undefined;
    const now = Date.now();
    const entry = await this.redis
      .eval(GET, 1, LRU, PREFIX, key, this.limits.maxEntryBytes, now)
      .catch(() => null);
    if (entry === null) return undefined;
    const opened =
      typeof entry === "string" ? seal.open(key, entry, now, this.limits.maxAgeMs) : undefined;
    if (opened === undefined || opened === "stale") {
      // Too large, forged or too old: a miss, and its place is freed.
      await this.redis.eval(REMOVE, 3, LRU, SIZES, TOTAL, PREFIX, key).catch(() => {});
      return undefined;
    }
    return opened.value;
  }

  async put(key: string, value: unknown): Promise<void> {
    const seal = await this.currentSeal();
    const now = Date.now();
    const entry = seal?.seal(key, value, now);
    if (entry === undefined) return;
    const bytes = Buffer.byteLength(entry);
    if (bytes > this.limits.maxEntryBytes || bytes > this.limits.maxBytes) return;
    await this.redis
      .eval(
        PUT,
        3,
        LRU,
        SIZES,
        TOTAL,
        PREFIX,
        key,
        entry,
        bytes,
        now,
        this.limits.maxAgeMs,
        this.limits.maxBytes,
      )
      .catch(() => {});
  }

  /** The seal, read again when Redis could not be asked before. */
  private async currentSeal(): Promise<CacheSeal | undefined> {
    const seal = await this.seal;
    if (!seal) this.seal = this.readSecret();
    return seal ?? this.seal;
  }

  /** The first instance makes the secret, every other reads it; undefined while Redis is away. */
  private async readSecret(): Promise<CacheSeal | undefined> {
    try {
      await this.redis.set(SECRET, newSecret(), "NX");
      const secret = secretOf(await this.redis.get(SECRET));
      return secret && new CacheSeal(secret);
    } catch {
      return undefined;
    }
  }
}
