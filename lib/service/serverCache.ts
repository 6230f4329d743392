/**
 * The server cache: act, extract and observe answers kept under a key made of the call (its
 * instruction, schema and options; never a model key) and a digest of the page's outline, so a
 * changed page is a miss and extract never serves stale data. A HIT of act performs the recorded
 * action without the model; extract and observe answer what was stored. Entries sit behind a
 * store interface: a folder here (versioned JSON files written by rename, as `cacheDir` keeps
 * them), a shared store later.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

export interface ServerCacheStore {
  get(key: string): Promise<unknown | undefined>;
  put(key: string, value: unknown): Promise<void>;
}

const ENTRY_VERSION = 1;
const EntrySchema = z.strictObject({
  version: z.literal(ENTRY_VERSION),
  key: z.string(),
  value: z.unknown(),
  createdAt: z.string(),
});

/** Entries as files of a folder; an unreadable or foreign file is a miss. */
export class FolderCacheStore implements ServerCacheStore {
  constructor(private readonly dir: string) {}

  async get(key: string): Promise<unknown | undefined> {
    const text = await readFile(this.file(key), "utf8").catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const entry = EntrySchema.parse(JSON.parse(text));
      return entry.key === key ? entry.value : undefined;
    } catch {
      return undefined;
    }
  }

  async put(key: string, value: unknown): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = this.file(key);
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const entry = { version: ENTRY_VERSION, key, value, createdAt: new Date().toISOString() };
    try {
      await writeFile(temporary, JSON.stringify(entry));
      await rename(temporary, file);
    } catch {
      // A full or read-only disk: the call was answered; the entry is simply not kept.
      await rm(temporary, { force: true });
    }
  }

  private file(key: string): string {
    return join(this.dir, `${key.replace(/[^\w-]/g, "_")}.json`);
  }
}

/**
 * The key of a call: its operation, what it asks (with the model's name but not its key, and
 * without options that do not change the answer), the page's URL and its outline's digest.
 */
export function serverCacheKey(
  operation: "act" | "extract" | "observe",
  request: { options?: Record<string, unknown> } & Record<string, unknown>,
  url: string,
  outline: string,
): string {
  const { timeout: _t, serverCache: _s, model, ...options } = request.options ?? {};
  const modelName =
    typeof model === "string"
      ? model
      : model && typeof model === "object"
        ? (model as { modelName?: unknown }).modelName
        : undefined;
  const asked = { ...request, options, modelName, url, outline: digest(outline) };
  return `${operation}-${digest(stable(asked))}`;
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

/** JSON with object keys in order: the same call makes the same key. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The caller turned the cache off for this call (the 3.7 client's header, or ours). */
export function bypassed(headers: Record<string, string | string[] | undefined>): boolean {
  return ["browserbase-cache-bypass", "x-cache-bypass"].some(
    (h) => String(headers[h] ?? "").toLowerCase() === "true",
  );
}
