/**
 * The server cache's folder store, on real files: entries sealed with the service's secret (one
 * written by anyone else is a miss), an entry's size capped, the total capped by deleting the
 * least recently used, an old entry a miss and deleted, and all of it kept across a restart.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CacheSeal } from "../../lib/service/cacheSeal.js";
import { FolderCacheStore } from "../../lib/service/folderCacheStore.js";
import { useTempFolders } from "../support/tempFolders.js";

const LIMITS = { maxEntryBytes: 4_096, maxBytes: 1_000_000, maxAgeMs: 7 * 86_400_000 };
const KEY = `extract-${"a".repeat(64)}`;
const OTHER = `extract-${"b".repeat(64)}`;

const tempFolder = useTempFolders();
const folder = () => join(tempFolder("wayfarer-server-cache-"), "cache");
const entryFile = (dir: string, key: string) => join(dir, `${key}.json`);
/** A value of about `bytes` bytes once sealed (the header adds ~150). */
const sized = (bytes: number) => ({ extraction: "x".repeat(bytes - 170) });
/** A few ms, so each use has a time of its own (files' times keep the order across a restart). */
const later = () => new Promise((r) => setTimeout(r, 5));

afterEach(() => {
  vi.useRealTimers();
});

describe("the folder store of the server cache", () => {
  it("keeps an entry sealed with a secret of 0600 beside the folder, read again after a restart", async () => {
    const dir = folder();
    const store = new FolderCacheStore(dir, LIMITS);
    await store.put(KEY, { extraction: "Cart: empty" });
    expect(await store.get(KEY)).toEqual({ extraction: "Cart: empty" });
    expect(await store.get(OTHER)).toBeUndefined();
    expect(statSync(`${dir}.secret`).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([`${KEY}.json`]);
    const [header] = readFileSync(entryFile(dir, KEY), "utf8").split("\n");
    expect(JSON.parse(header ?? "")).toMatchObject({ v: 2, key: KEY, mac: expect.any(String) });
    // Another process on the same data folder: the same secret, the same entries.
    const again = new FolderCacheStore(dir, LIMITS);
    expect(await again.get(KEY)).toEqual({ extraction: "Cart: empty" });
  });

  it("misses (and deletes) an entry someone else wrote: no MAC, a wrong one, another key's", async () => {
    const dir = folder();
    const first = new FolderCacheStore(dir, LIMITS);
    await first.put(KEY, { extraction: "Cart: empty" });
    await first.put(OTHER, { extraction: "Cart: other" });
    const real = readFileSync(entryFile(dir, KEY), "utf8");
    const [header = "", body = ""] = real.split("\n");
    const forgeries = {
      // The format before entries were sealed: plain JSON.
      "no MAC": JSON.stringify({ version: 1, key: KEY, value: { extraction: "forged" } }),
      "a changed value": `${header}\n${body.replace("Cart: empty", "forged")}`,
      "a made-up MAC": `${header.replace(/"mac":"[0-9a-f]+"/, `"mac":"${"0".repeat(64)}"`)}\n${body}`,
      "another key's entry": readFileSync(entryFile(dir, OTHER), "utf8"),
      "a MAC under another secret": new CacheSeal(Buffer.alloc(32, 7)).seal(
        KEY,
        { extraction: "forged" },
        Date.now(),
      ),
    };
    for (const [what, text] of Object.entries(forgeries)) {
      writeFileSync(entryFile(dir, KEY), text ?? "");
      // Written before the service started: the scan finds it and reads it.
      const store = new FolderCacheStore(dir, LIMITS);
      expect(await store.get(KEY), what).toBeUndefined();
      expect(readdirSync(dir), what).not.toContain(`${KEY}.json`);
      // The real answer is then kept and served.
      await store.put(KEY, { extraction: "Cart: empty" });
      expect(await store.get(KEY), what).toEqual({ extraction: "Cart: empty" });
    }
    // A file written behind a running store's back is never read (the index does not know it).
    const running = new FolderCacheStore(dir, LIMITS);
    await running.get(KEY);
    const third = `extract-${"c".repeat(64)}`;
    writeFileSync(entryFile(dir, third), real.replace(KEY, third));
    expect(await running.get(third)).toBeUndefined();
  });

  it("does not keep an entry over the size cap", async () => {
    const dir = folder();
    const store = new FolderCacheStore(dir, LIMITS);
    await store.put(KEY, sized(LIMITS.maxEntryBytes + 100));
    expect(await store.get(KEY)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
    await store.put(KEY, sized(LIMITS.maxEntryBytes - 100));
    expect(await store.get(KEY)).toEqual(sized(LIMITS.maxEntryBytes - 100));
  });

  it("deletes the least recently used entries beyond the total; a touched one stays", async () => {
    const dir = folder();
    // Room for three entries of ~1000 bytes, not four.
    const store = new FolderCacheStore(dir, { ...LIMITS, maxBytes: 3_500 });
    const keys = ["1", "2", "3", "4", "5"].map((n) => `extract-${n.repeat(64)}`);
    const [k1 = "", k2 = "", k3 = "", k4 = "", k5 = ""] = keys;
    for (const key of [k1, k2, k3]) {
      await store.put(key, sized(1_000));
      await later();
    }
    expect((await store.usage()).entries).toBe(3);
    // k1 was put first but used last: k2 is now the least recently used.
    expect(await store.get(k1)).toBeDefined();
    await later();
    await store.put(k4, sized(1_000));
    expect(await store.get(k2)).toBeUndefined();
    expect(readdirSync(dir)).not.toContain(`${k2}.json`);
    for (const key of [k1, k3, k4]) {
      await later();
      expect(await store.get(key), key).toBeDefined();
    }
    const { entries, bytes } = await store.usage();
    expect(entries).toBe(3);
    expect(bytes).toBeLessThanOrEqual(3_500);
    // The order of use survives a restart (files' times); a lower cap evicts at start.
    const restarted = new FolderCacheStore(dir, { ...LIMITS, maxBytes: 2_500 });
    expect(await restarted.get(k1)).toBeUndefined();
    expect(await restarted.get(k3)).toBeDefined();
    await later();
    expect(await restarted.get(k4)).toBeDefined();
    await restarted.put(k5, sized(1_000));
    expect(readdirSync(dir).sort()).toEqual([`${k4}.json`, `${k5}.json`]);
  });

  it("misses and deletes an entry older than the age limit; one unused that long goes at the next put", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.UTC(2030, 0, 1);
    vi.setSystemTime(start);
    const dir = folder();
    const store = new FolderCacheStore(dir, { ...LIMITS, maxAgeMs: 60_000 });
    await store.put(KEY, { extraction: "old" });
    await store.put(OTHER, { extraction: "unused" });
    vi.setSystemTime(start + 59_000);
    expect(await store.get(KEY)).toEqual({ extraction: "old" });
    // Touched at 59 s, but made at 0: served no longer than the age limit after it was made.
    vi.setSystemTime(start + 60_000);
    expect(await store.get(KEY)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([`${OTHER}.json`]);
    const fresh = `extract-${"f".repeat(64)}`;
    await store.put(fresh, { extraction: "new" });
    expect(readdirSync(dir)).toEqual([`${fresh}.json`]);
    expect(await store.get(fresh)).toEqual({ extraction: "new" });
  });
});
