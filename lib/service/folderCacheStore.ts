/**
 * The server cache as files of a folder (embedded mode), sealed with the service's secret and
 * capped. What is kept is known from an index in memory, built from a scan at start and kept in
 * the order of last use: a HIT moves its entry to the back, and the total cap deletes files from
 * the front. A file the index does not know (written behind the service's back) is never read.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CacheSeal, folderSecret } from "./cacheSeal.js";
import type { CacheLimits, ServerCacheStore } from "./serverCache.js";

interface Kept {
  bytes: number;
  /** ms; a file's mtime after a restart (a HIT touches it). */
  lastUse: number;
}

const ENTRY = ".json";

export class FolderCacheStore implements ServerCacheStore {
  /** File name → size and last use, least recently used first (a Map keeps insertion order). */
  private readonly index = new Map<string, Kept>();
  private total = 0;
  /** The secret read (or made) and the folder scanned; undefined: the store keeps nothing. */
  private readonly ready: Promise<CacheSeal | undefined>;

  /** `secretFile` sits beside the folder, not in it: who may write entries need not read it. */
  constructor(
    private readonly dir: string,
    private readonly limits: CacheLimits,
    secretFile = `${dir}.secret`,
  ) {
    this.ready = this.start(secretFile).catch(() => undefined);
  }

  /** Once its start (the secret, the scan) is over: nothing of it writes after the service. */
  async close(): Promise<void> {
    await this.ready;
  }

  /** Entries kept and their bytes, as the index counts them. */
  async usage(): Promise<{ entries: number; bytes: number }> {
    await this.ready;
    return { entries: this.index.size, bytes: this.total };
  }

  async get(key: string): Promise<unknown | undefined> {
    const seal = await this.ready;
    const name = fileName(key);
    if (!seal || !this.index.has(name)) return undefined;
    const now = Date.now();
    const text = await readAtMost(join(this.dir, name), this.limits.maxEntryBytes);
    const opened = text === undefined ? undefined : seal.open(key, text, now, this.limits.maxAgeMs);
    if (opened === undefined || opened === "stale") {
      // Gone, too large, forged or too old: a miss, and its place is freed.
      await this.drop([name]);
      return undefined;
    }
    const kept = this.index.get(name);
    if (kept) {
      this.index.delete(name);
      this.index.set(name, { ...kept, lastUse: now });
      // The order of use outlives a restart (the scan reads it back); a failure costs only that.
      const at = new Date(now);
      await utimes(join(this.dir, name), at, at).catch(() => {});
    }
    return opened.value;
  }

  async put(key: string, value: unknown): Promise<void> {
    const seal = await this.ready;
    const now = Date.now();
    const text = seal?.seal(key, value, now);
    if (text === undefined) return;
    const bytes = Buffer.byteLength(text);
    if (bytes > this.limits.maxEntryBytes || bytes > this.limits.maxBytes) return;
    const name = fileName(key);
    const file = join(this.dir, name);
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, file);
    } catch {
      // A full or read-only disk: the call was answered; the entry is simply not kept.
      await rm(temporary, { force: true });
      return;
    }
    this.forget(name);
    this.index.set(name, { bytes, lastUse: now });
    this.total += bytes;
    await this.evict(now);
  }

  /** Reads the secret and indexes the entries on disk, oldest use first, within the caps. */
  private async start(secretFile: string): Promise<CacheSeal> {
    await mkdir(this.dir, { recursive: true });
    const seal = new CacheSeal(await folderSecret(secretFile));
    const found: (Kept & { name: string })[] = [];
    for (const name of await readdir(this.dir)) {
      const file = join(this.dir, name);
      // A temp file left by a write cut short (one process owns a data folder).
      if (name.endsWith(".tmp")) await rm(file, { force: true });
      if (!name.endsWith(ENTRY)) continue;
      const info = await stat(file).catch(() => undefined);
      if (info?.isFile()) found.push({ name, bytes: info.size, lastUse: info.mtimeMs });
    }
    found.sort((a, b) => a.lastUse - b.lastUse);
    for (const { name, ...kept } of found) {
      this.index.set(name, kept);
      this.total += kept.bytes;
    }
    await this.evict(Date.now());
    return seal;
  }

  /**
   * Deletes entries unused for longer than the age limit (made before it, so old), then the
   * least recently used until the total fits. The index runs from the least recent use, so
   * both stop at the first entry that is neither.
   */
  private async evict(now: number): Promise<void> {
    const gone: string[] = [];
    for (const [name, kept] of this.index) {
      const old = kept.lastUse <= now - this.limits.maxAgeMs;
      if (!old && this.total <= this.limits.maxBytes) break;
      gone.push(name);
      this.forget(name);
    }
    await this.drop(gone);
  }

  /** Out of the index at once (a concurrent put counts right), then off the disk. */
  private async drop(names: string[]): Promise<void> {
    for (const name of names) this.forget(name);
    await Promise.all(names.map((name) => rm(join(this.dir, name), { force: true })));
  }

  private forget(name: string): void {
    const kept = this.index.get(name);
    if (!kept) return;
    this.index.delete(name);
    this.total -= kept.bytes;
  }
}

const fileName = (key: string) => `${key.replace(/[^\w-]/g, "_")}${ENTRY}`;

/** The file's text, or undefined when it is gone or larger than `limit` (never read whole). */
async function readAtMost(file: string, limit: number): Promise<string | undefined> {
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    return size > limit ? undefined : await handle.readFile("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
