/**
 * The server cache in Redis (shared mode), against a real redis-server: two stores (two
 * instances) share one secret made once, an entry someone else wrote is a miss, an entry's size
 * and the total are capped (the least recently used go, a touched one stays), an old entry is a
 * miss and is removed, and the running total matches what is kept.
 */
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { CacheSeal } from "../../lib/service/cacheSeal.js";
import { connectRedis } from "../../lib/service/shared/redis.js";
import { RedisCacheStore } from "../../lib/service/shared/redisCache.js";
import { type RedisServer, startRedis } from "../support/redisServer.js";
import { describeNeeding } from "../support/systemPackages.js";

const LIMITS = { maxEntryBytes: 4_096, maxBytes: 1_000_000, maxAgeMs: 7 * 86_400_000 };
const KEY = `extract-${"a".repeat(64)}`;
const OTHER = `extract-${"b".repeat(64)}`;
const sized = (bytes: number) => ({ extraction: "x".repeat(bytes - 170) });

let server: RedisServer;
let inspect: Redis;
const clients: Redis[] = [];
/** A store on a connection of its own, as each instance has (the service's connection settings). */
const store = async (limits = LIMITS) => {
  const redis = await connectRedis(server.url);
  clients.push(redis);
  return new RedisCacheStore(redis, limits);
};

beforeAll(async () => {
  server = await startRedis();
  inspect = new Redis(server.url, { maxRetriesPerRequest: 1 });
  inspect.on("error", () => {});
});
afterEach(async () => {
  vi.useRealTimers();
  for (const client of clients.splice(0)) client.disconnect();
  await inspect.flushall();
});
afterAll(async () => {
  inspect?.disconnect();
  await server?.stop();
});

/** The bookkeeping, checked against what Redis holds. */
async function kept(): Promise<{ members: string[]; total: number }> {
  const members = await inspect.zrange("wayfarer:cache-lru", "0", "-1");
  const total = Number((await inspect.get("wayfarer:cache-bytes")) ?? 0);
  let sum = 0;
  for (const member of members) sum += await inspect.strlen(`wayfarer:cache:${member}`);
  expect(total, "the running total is the bytes kept").toBe(sum);
  return { members, total };
}

describeNeeding("redis-server")("the server cache in Redis", () => {
  it("seals entries with one secret made once: an entry put through one instance is read through another", async () => {
    const a = await store();
    const b = await store();
    await a.put(KEY, { extraction: "Cart: empty" });
    expect(await b.get(KEY)).toEqual({ extraction: "Cart: empty" });
    expect(await inspect.get("wayfarer:cache-secret")).toMatch(/^[0-9a-f]{64}$/);
    // Sealed, not plain JSON.
    const text = (await inspect.get(`wayfarer:cache:${KEY}`)) ?? "";
    expect(JSON.parse(text.split("\n")[0] ?? "")).toMatchObject({ v: 2, key: KEY });
    // Expires by itself after the age limit.
    expect(await inspect.pttl(`wayfarer:cache:${KEY}`)).toBeGreaterThan(0);
    expect((await kept()).members).toEqual([KEY]);
  });

  it("misses an entry someone else wrote (no MAC, a wrong one, another key's) and computes anew", async () => {
    const cache = await store();
    await cache.put(KEY, { extraction: "Cart: empty" });
    await cache.put(OTHER, { extraction: "Cart: other" });
    const real = (await inspect.get(`wayfarer:cache:${KEY}`)) ?? "";
    const [header = "", body = ""] = real.split("\n");
    const forgeries = {
      "no MAC": JSON.stringify({ extraction: "forged" }),
      "a changed value": `${header}\n${body.replace("Cart: empty", "forged")}`,
      "another key's entry": (await inspect.get(`wayfarer:cache:${OTHER}`)) ?? "",
      "a MAC under another secret":
        new CacheSeal(Buffer.alloc(32, 7)).seal(KEY, { extraction: "forged" }, Date.now()) ?? "",
    };
    for (const [what, text] of Object.entries(forgeries)) {
      await inspect.set(`wayfarer:cache:${KEY}`, text);
      expect(await cache.get(KEY), what).toBeUndefined();
      // Removed, and its bytes taken off the total.
      expect(await inspect.exists(`wayfarer:cache:${KEY}`), what).toBe(0);
      expect((await kept()).members, what).toEqual([OTHER]);
      await cache.put(KEY, { extraction: "Cart: empty" });
      expect(await cache.get(KEY), what).toEqual({ extraction: "Cart: empty" });
    }
    // A value too large to be ours is not even read whole.
    await inspect.set(`wayfarer:cache:${KEY}`, "x".repeat(LIMITS.maxEntryBytes + 1));
    expect(await cache.get(KEY)).toBeUndefined();
    expect(await inspect.exists(`wayfarer:cache:${KEY}`)).toBe(0);
  });

  it("does not keep an entry over the size cap", async () => {
    const cache = await store();
    await cache.put(KEY, sized(LIMITS.maxEntryBytes + 100));
    expect(await cache.get(KEY)).toBeUndefined();
    expect(await inspect.exists(`wayfarer:cache:${KEY}`)).toBe(0);
    expect((await kept()).members).toEqual([]);
    await cache.put(KEY, sized(LIMITS.maxEntryBytes - 100));
    expect(await cache.get(KEY)).toEqual(sized(LIMITS.maxEntryBytes - 100));
  });

  it("evicts the least recently used beyond the total, across instances; a touched one stays", async () => {
    const limits = { ...LIMITS, maxBytes: 3_500 };
    const a = await store(limits);
    const b = await store(limits);
    const [k1 = "", k2 = "", k3 = "", k4 = ""] = ["1", "2", "3", "4"].map(
      (n) => `extract-${n.repeat(64)}`,
    );
    const later = () => new Promise((r) => setTimeout(r, 5));
    for (const key of [k1, k2, k3]) {
      await a.put(key, sized(1_000));
      await later();
    }
    // Used through the other instance: k2 is now the least recently used.
    expect(await b.get(k1)).toBeDefined();
    await later();
    await b.put(k4, sized(1_000));
    expect(await a.get(k2)).toBeUndefined();
    for (const key of [k1, k3, k4]) expect(await a.get(key), key).toBeDefined();
    const { members, total } = await kept();
    expect(members.sort()).toEqual([k1, k3, k4].sort());
    expect(total).toBeLessThanOrEqual(3_500);
  });

  it("misses and removes an entry older than the age limit; one unused that long goes at the next put", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    const cache = await store({ ...LIMITS, maxAgeMs: 60_000 });
    await cache.put(KEY, { extraction: "old" });
    await cache.put(OTHER, { extraction: "unused" });
    vi.setSystemTime(start + 59_000);
    expect(await cache.get(KEY)).toEqual({ extraction: "old" });
    // Touched at 59 s, but made at 0: served no longer than the age limit after it was made.
    vi.setSystemTime(start + 60_000);
    expect(await cache.get(KEY)).toBeUndefined();
    expect((await kept()).members).toEqual([OTHER]);
    const fresh = `extract-${"f".repeat(64)}`;
    await cache.put(fresh, { extraction: "new" });
    expect((await kept()).members).toEqual([fresh]);
  });

  it("keeps working after Redis restarts empty: the secret is made again, the same for every instance", async () => {
    const a = await store();
    const b = await store();
    await a.put(KEY, { extraction: "before" });
    const ready = Promise.all(
      clients.map((c) => new Promise<void>((resolve) => c.once("ready", () => resolve()))),
    );
    await server.restart();
    await ready;
    expect(await b.get(KEY)).toBeUndefined();
    await a.put(KEY, { extraction: "after" });
    expect(await b.get(KEY)).toEqual({ extraction: "after" });
  });
});
