/**
 * Entries on disk never hurt a run: whole or absent, a bad one is a miss, an unwritable folder
 * falls back to the overlay, two processes writing one key never corrupt it.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CACHE_ENTRY_VERSION, type CacheEntry } from "../../lib/cache/cacheEntry.js";
import { CacheStore } from "../../lib/cache/cacheStore.js";
import { Logger, type LogLine } from "../../lib/log.js";
import { useTempFolders } from "../support/tempFolders.js";

const KEY = "act-v1-0123456789abcdef0123456789abcdef";
const firstDescription = (read: CacheEntry | undefined) =>
  read?.method === "agent" ? undefined : read?.steps[0]?.action.description;
const entry = (description = "the Sign in button"): CacheEntry => ({
  version: CACHE_ENTRY_VERSION,
  key: KEY,
  method: "act",
  createdAt: new Date(0).toISOString(),
  parts: { instruction: "click sign in" },
  steps: [
    {
      action: {
        selector: "xpath=/html/body/button[1]",
        description,
        method: "click",
        arguments: [],
      },
      identity: { role: "button", name: "Sign in", context: "Login Email Sign in" },
    },
  ],
});

let lines: LogLine[] = [];
const logger = () => new Logger({ verbose: 2, disablePino: true, logger: (l) => lines.push(l) });
const tempFolder = useTempFolders();
const folder = () => tempFolder("wayfarer-cache-test-");
afterEach(() => {
  lines = [];
});

describe("the cache store", () => {
  it("writes an entry whole and reads it back; the overlay is read first", async () => {
    const dir = folder();
    const overlay = folder();
    const store = new CacheStore(dir, logger(), overlay);
    await store.write(entry());
    expect(await store.read(KEY)).toEqual(entry());
    expect(await readdir(dir)).toEqual([`${KEY}.json`]);
    writeFileSync(join(overlay, `${KEY}.json`), JSON.stringify(entry("healed")));
    expect(firstDescription(await store.read(KEY))).toBe("healed");
    expect(await store.read("act-v1-ffffffffffffffffffffffffffffffff")).toBeUndefined();
  });

  it("treats a corrupted, foreign or older entry as a miss, and says why", async () => {
    const dir = folder();
    const store = new CacheStore(dir, logger(), folder());
    writeFileSync(join(dir, `${KEY}.json`), '{"version": 1, "key": "act-v1-0123');
    expect(await store.read(KEY)).toBeUndefined();
    writeFileSync(join(dir, `${KEY}.json`), JSON.stringify({ ...entry(), steps: "nope" }));
    expect(await store.read(KEY)).toBeUndefined();
    writeFileSync(join(dir, `${KEY}.json`), JSON.stringify({ ...entry(), version: 0 }));
    expect(await store.read(KEY)).toBeUndefined();
    expect(lines.map((l) => l.message)).toEqual([
      "ignored an entry that is not JSON",
      "ignored an entry that is not one of ours",
      "ignored an entry of another version",
    ]);
  });

  it("writes to the overlay when cacheDir cannot be written, and reads it from there", async () => {
    const parent = folder();
    writeFileSync(join(parent, "file"), "not a folder");
    const overlay = folder();
    // A cacheDir under a file cannot be created, whoever runs the test (root ignores modes).
    const store = new CacheStore(join(parent, "file", "cache"), logger(), overlay);
    await store.write(entry());
    expect(await readdir(overlay)).toEqual([`${KEY}.json`]);
    expect(await store.read(KEY)).toEqual(entry());
    expect(lines.map((l) => l.message)).toContain(
      "cacheDir cannot be written: new entries go to the overlay",
    );
  });

  it("goes on uncached when nothing can be written, with a warning", async () => {
    const parent = folder();
    writeFileSync(join(parent, "file"), "not a folder");
    const store = new CacheStore(join(parent, "file", "a"), logger(), join(parent, "file", "b"));
    await expect(store.write(entry())).resolves.toBeUndefined();
    expect(lines.at(-1)?.message).toBe("could not write a cache entry; the call goes on uncached");
  });

  it("exports an entry as {cacheKey, entry} and imports it elsewhere; refuses a foreign one", async () => {
    const from = new CacheStore(folder(), logger(), folder());
    await from.write(entry());
    const exported = await from.export(KEY);
    expect(exported).toEqual({ cacheKey: KEY, entry: entry() });
    const to = new CacheStore(folder(), logger(), folder());
    expect(await to.import(JSON.parse(JSON.stringify(exported)))).toBe(true);
    expect(await to.read(KEY)).toEqual(entry());
    expect(await to.import({ cacheKey: "act-v1-aa", entry: entry() })).toBe(false);
  });

  it("never shows half an entry while two processes write the same key", async () => {
    const dir = folder();
    // .mts: an ES module wherever it sits, so it may await at top level.
    const script = join(folder(), "writer.mts");
    writeFileSync(
      script,
      `import { CacheStore } from ${JSON.stringify(join(import.meta.dirname, "../../lib/cache/cacheStore.js"))};
import { Logger } from ${JSON.stringify(join(import.meta.dirname, "../../lib/log.js"))};
const store = new CacheStore(${JSON.stringify(dir)}, new Logger({ verbose: 0, disablePino: true }), ${JSON.stringify(folder())});
const entry = JSON.parse(process.argv[2]);
for (let i = 0; i < 150; i++) await store.write({ ...entry, createdAt: String(i) });
`,
    );
    const writer = (description: string) =>
      new Promise<number>((done) => {
        const child = spawn(
          process.execPath,
          ["--import", "tsx", script, JSON.stringify(entry(description))],
          {
            stdio: "ignore",
          },
        );
        child.on("exit", (code) => done(code ?? 1));
      });
    const reader = new CacheStore(dir, logger(), folder());
    const writing = Promise.all([writer("first"), writer("second")]);
    let reads = 0;
    let finished = false;
    void writing.then(() => (finished = true));
    while (!finished) {
      const seen = await reader.read(KEY);
      if (seen) {
        reads++;
        expect(["first", "second"]).toContain(firstDescription(seen));
      }
    }
    expect(await writing).toEqual([0, 0]);
    expect(reads).toBeGreaterThan(0);
    expect(lines.filter((l) => l.level < 2)).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, `${KEY}.json`), "utf8")).key).toBe(KEY);
    expect((await readdir(dir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
