/**
 * A browser profile folder as one buffer, and back: what a context keeps of a session's browser
 * (cookies' database, localStorage, IndexedDB, session storage, preferences). Caches, locks and
 * crash reports are left out: Chromium rebuilds them, and they are most of a profile's size.
 *
 * The format is ours and small: a magic line, then per file its path (relative, `/`-separated),
 * its size and its bytes. Unpacking trusts nothing in it: a path that is absolute, climbs out
 * (`..`), names the same file twice or holds a NUL is refused, as is an archive past its limits
 * or cut short, before anything is written; files are created new (never through a link) in a
 * folder that must be empty.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, writeFile } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { ContextError } from "../errors.js";

const MAGIC = Buffer.from("wayfarer-profile-1\n");
const MiB = 1024 * 1024;

/** An archive of no file: a context created and not yet saved. */
export const EMPTY_PROFILE = Buffer.from(MAGIC);

/** The most a profile may hold once its caches are left out, and how many files. */
export const PROFILE_LIMITS = { bytes: 50 * MiB, files: 10_000 };

/** Names (of a folder or a file, at any depth) that are caches, locks or reports. */
const LEFT_OUT = new Set([
  "Cache",
  "Code Cache",
  "GPUCache",
  "GrShaderCache",
  "GraphiteDawnCache",
  "ShaderCache",
  "DawnGraphiteCache",
  "DawnWebGPUCache",
  "CacheStorage",
  "ScriptCache",
  "Crashpad",
  "Crash Reports",
  "BrowserMetrics",
  "component_crx_cache",
  "optimization_guide_model_store",
  "Safe Browsing",
  "blob_storage",
  "Download Service",
  "SingletonLock",
  "SingletonCookie",
  "SingletonSocket",
  "LOCK",
]);

const keep = (name: string) => !LEFT_OUT.has(name) && !name.endsWith(".tmp");

/** The profile folder's files, packed; a ContextError when they pass PROFILE_LIMITS. */
export async function packProfile(dir: string, limits = PROFILE_LIMITS): Promise<Buffer> {
  const parts: Buffer[] = [MAGIC];
  let bytes = 0;
  let files = 0;
  const visit = async (relative: string): Promise<void> => {
    const names = (await readdir(join(dir, relative))).filter(keep).sort();
    for (const name of names) {
      const path = relative ? `${relative}/${name}` : name;
      const stat = await lstat(join(dir, path));
      if (stat.isDirectory()) {
        await visit(path);
        continue;
      }
      // Links, sockets and devices are not a profile's data.
      if (!stat.isFile()) continue;
      files++;
      bytes += stat.size;
      if (files > limits.files || bytes > limits.bytes) {
        throw new ContextError(
          `the browser's profile is past what a context keeps (${limits.files} files, ${limits.bytes / MiB} MiB once caches are left out)`,
        );
      }
      const data = await readNoFollow(join(dir, path), stat.size);
      const name8 = Buffer.from(path, "utf8");
      const head = Buffer.alloc(6);
      head.writeUInt16BE(name8.length, 0);
      head.writeUInt32BE(data.length, 2);
      parts.push(head, name8, data);
    }
  };
  await visit("");
  return Buffer.concat(parts);
}

/**
 * A file's bytes, never through a link put in its place since it was looked at, and no more than
 * the size it had then.
 */
async function readNoFollow(path: string, size: number): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** One file of an archive, read and checked. */
interface Entry {
  path: string;
  data: Buffer;
}

/** An archive's files, every one checked before any is written. */
export function readProfileArchive(archive: Buffer, limits = PROFILE_LIMITS): Entry[] {
  const broken = (why: string) => new ContextError(`the context's profile is unreadable: ${why}`);
  if (!archive.subarray(0, MAGIC.length).equals(MAGIC)) throw broken("not a profile archive");
  const entries: Entry[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (let at = MAGIC.length; at < archive.length; ) {
    if (at + 6 > archive.length) throw broken("cut short");
    const nameLength = archive.readUInt16BE(at);
    const size = archive.readUInt32BE(at + 2);
    const end = at + 6 + nameLength + size;
    if (end > archive.length) throw broken("cut short");
    const path = archive.subarray(at + 6, at + 6 + nameLength).toString("utf8");
    const segments = path.split("/");
    if (
      !path ||
      path.includes("\0") ||
      path.includes("\\") ||
      segments.some((s) => s === "" || s === "." || s === "..")
    ) {
      throw broken(`a file's path is not one inside the profile (${JSON.stringify(path)})`);
    }
    if (seen.has(path)) throw broken(`a file is named twice (${JSON.stringify(path)})`);
    seen.add(path);
    bytes += size;
    if (entries.length >= limits.files || bytes > limits.bytes) throw broken("past its limits");
    entries.push({ path, data: archive.subarray(at + 6 + nameLength, end) });
    at = end;
  }
  return entries;
}

/** Writes an archive's files into `dir`, which must be empty (made if missing). */
export async function unpackProfile(
  archive: Buffer,
  dir: string,
  limits = PROFILE_LIMITS,
): Promise<void> {
  const entries = readProfileArchive(archive, limits);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if ((await readdir(dir)).length) {
    throw new ContextError("a context's profile is unpacked only into an empty folder");
  }
  const root = resolve(dir);
  for (const { path, data } of entries) {
    const target = resolve(root, ...path.split("/"));
    if (!target.startsWith(root + sep)) throw new ContextError("a file's path leaves the profile");
    await mkdir(resolve(target, ".."), { recursive: true, mode: 0o700 });
    // New files only: never through a link, never over a file written before.
    await writeFile(target, data, { flag: "wx", mode: 0o600 });
  }
}
