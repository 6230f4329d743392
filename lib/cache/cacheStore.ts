/**
 * Cache entries on disk, in a way that never hurts a run. Two folders: `cacheDir` (committed
 * with the repository, and read-only on a serverless host) and a writable overlay (by default
 * under the OS temp folder) that is read first. A write goes to `cacheDir` when it can, else to
 * the overlay; every write is a temp file renamed into place, so a reader or a second writer
 * never sees half an entry. An unreadable, foreign or old-version entry is a miss (logged); a
 * read-only or full disk is logged and the call goes on uncached.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Logger } from "../log.js";
import {
  CACHE_ENTRY_VERSION,
  type CacheEntry,
  CacheEntrySchema,
  type ExportedEntry,
  ExportedEntrySchema,
} from "./cacheEntry.js";

export class CacheStore {
  readonly dir: string;
  readonly overlay: string;
  /**
   * Set once cacheDir refused a write (read-only, not a folder, full): later writes go straight
   * to the overlay.
   */
  private dirReadOnly = false;

  constructor(
    dir: string,
    private readonly logger: Logger,
    overlay?: string,
  ) {
    this.dir = resolve(dir);
    this.overlay = resolve(overlay ?? defaultOverlay(this.dir));
  }

  /** The entry for `key`: the overlay's, else cacheDir's; undefined on a miss. */
  async read(key: string): Promise<CacheEntry | undefined> {
    // Both at once: on a deployment the overlay is usually empty and cacheDir answers.
    const [overlay, committed] = await Promise.all(
      [this.overlay, this.dir].map((folder) => this.readFrom(folder, key)),
    );
    return overlay ?? committed;
  }

  /** Writes the entry whole, or not at all; a failure is logged, never thrown. */
  async write(entry: CacheEntry): Promise<void> {
    if (!this.dirReadOnly) {
      const error = await writeAtomically(this.dir, entry);
      if (!error) return;
      this.dirReadOnly = true;
      this.logger.info("cache", "cacheDir cannot be written: new entries go to the overlay", {
        cacheDir: this.dir,
        overlay: this.overlay,
        code: error.code,
      });
    }
    const error = await writeAtomically(this.overlay, entry);
    if (error) this.giveUp(entry.key, error);
  }

  /** `{cacheKey, entry}`, as another cache imports it. */
  async export(key: string): Promise<ExportedEntry | undefined> {
    const entry = await this.read(key);
    return entry && { cacheKey: key, entry };
  }

  /** Takes in an exported entry (the service's `cacheEntry`); a malformed one is refused. */
  async import(exported: unknown): Promise<boolean> {
    const parsed = ExportedEntrySchema.safeParse(exported);
    if (!parsed.success || parsed.data.cacheKey !== parsed.data.entry.key) {
      this.logger.warn("cache", "ignored an imported entry that is not one of ours");
      return false;
    }
    await this.write(parsed.data.entry);
    return true;
  }

  private async readFrom(folder: string, key: string): Promise<CacheEntry | undefined> {
    let text: string;
    try {
      text = await readFile(fileOf(folder, key), "utf8");
    } catch {
      return undefined;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      this.logger.warn("cache", "ignored an entry that is not JSON", { file: fileOf(folder, key) });
      return undefined;
    }
    const version = (data as { version?: unknown } | null)?.version;
    if (version !== CACHE_ENTRY_VERSION) {
      this.logger.debug("cache", "ignored an entry of another version", { version, cacheKey: key });
      return undefined;
    }
    const parsed = CacheEntrySchema.safeParse(data);
    if (!parsed.success || parsed.data.key !== key) {
      this.logger.warn("cache", "ignored an entry that is not one of ours", {
        file: fileOf(folder, key),
      });
      return undefined;
    }
    return parsed.data;
  }

  private giveUp(key: string, error: NodeJS.ErrnoException): void {
    this.logger.warn("cache", "could not write a cache entry; the call goes on uncached", {
      cacheKey: key,
      code: error.code,
      error: error.message,
    });
  }
}

function fileOf(folder: string, key: string): string {
  // Keys are `<method>-v<n>-<hex>`; anything else never names a file.
  if (!/^[a-z]+-v\d+-[0-9a-f]+$/.test(key)) throw new Error(`not a cache key: ${key}`);
  return join(folder, `${key}.json`);
}

async function writeAtomically(
  folder: string,
  entry: CacheEntry,
): Promise<NodeJS.ErrnoException | undefined> {
  const target = fileOf(folder, entry.key);
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await mkdir(folder, { recursive: true });
    await writeFile(temporary, `${JSON.stringify(entry, null, 2)}\n`, { flag: "wx" });
    await rename(temporary, target);
    return undefined;
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    return error as NodeJS.ErrnoException;
  }
}

/** One overlay per cacheDir, under the OS temp folder (writable on serverless hosts). */
function defaultOverlay(dir: string): string {
  const id = createHash("sha256").update(dir).digest("hex").slice(0, 12);
  return join(tmpdir(), "wayfarer-cache", id);
}
