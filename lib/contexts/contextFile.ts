/**
 * A context's file: one line of JSON in clear (which context, of which project, when saved, how
 * big), then its profile sealed (contextSeal.ts) with that line as associated data, so that the
 * line cannot be changed either. Written whole beside its place and renamed into it: a save cut
 * short by a crash leaves the previous version as it was (and a `.tmp` file that is not read).
 */
import { randomBytes } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { ContextError } from "../errors.js";
import { contextKey, openContext, sealContext } from "./contextSeal.js";
import { PROFILE_LIMITS } from "./profileArchive.js";

export const ContextHeaderSchema = z.strictObject({
  v: z.literal(1),
  id: z.string().min(1),
  project: z.string().min(1),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
  /** The profile archive's size, bytes (before compression). */
  bytes: z.number().int().nonnegative(),
});
export type ContextHeader = z.infer<typeof ContextHeaderSchema>;

/** A header line is never longer than this: a file that says otherwise is not ours. */
const HEADER_MAX = 4_096;

/** Seals `profile` under the context's key and writes the file in one rename. */
export async function writeContextFile(
  file: string,
  header: ContextHeader,
  profile: Buffer,
  secret: Buffer,
): Promise<void> {
  const line = Buffer.from(`${JSON.stringify(header)}\n`);
  const sealed = sealContext(profile, contextKey(secret, header.project, header.id), line);
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(Buffer.concat([line, sealed]));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  // The rename itself made durable: a crash now keeps the new version, not an empty name.
  const folder = await open(dirname(file), "r").catch(() => undefined);
  await folder?.sync().catch(() => {});
  await folder?.close();
}

/** The header of a context's file, read without opening its profile. */
export async function readContextHeader(file: string): Promise<ContextHeader> {
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEADER_MAX), 0, HEADER_MAX, 0);
    return parseHeader(buffer.subarray(0, bytesRead)).header;
  } finally {
    await handle.close();
  }
}

/**
 * The profile in a context's file, opened under the key of `project` and `id` (the header must
 * name the same); a ContextError when the file is not that context's or was changed.
 */
export async function readContextFile(
  file: string,
  expected: { project: string; id: string },
  secret: Buffer,
): Promise<{ header: ContextHeader; profile: Buffer }> {
  const bytes = await readFile(file);
  const { header, line } = parseHeader(bytes);
  if (header.project !== expected.project || header.id !== expected.id) {
    throw new ContextError("the context's file is another context's");
  }
  const key = contextKey(secret, expected.project, expected.id);
  const profile = openContext(bytes.subarray(line.length), key, line, PROFILE_LIMITS.bytes + 1);
  return { header, profile };
}

function parseHeader(bytes: Buffer): { header: ContextHeader; line: Buffer } {
  const end = bytes.indexOf(0x0a);
  if (end === -1 || end >= HEADER_MAX) {
    throw new ContextError("the context's file is not one this service wrote");
  }
  const line = bytes.subarray(0, end + 1);
  try {
    return { header: ContextHeaderSchema.parse(JSON.parse(line.toString("utf8"))), line };
  } catch {
    throw new ContextError("the context's file is not one this service wrote");
  }
}
