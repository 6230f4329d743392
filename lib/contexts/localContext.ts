/**
 * The library's own contexts (LOCAL): `localBrowserLaunchOptions.context: {path, persist}` names
 * a file, sealed as the service seals its contexts (contextFile.ts) under the secret in
 * WAYFARER_CONTEXT_KEY (64 hex characters), so that the file may sit in a repository or a
 * bucket and open only where the key is. A file that does not exist yet is an empty profile
 * (`npm run login` makes the first one); with `persist` the profile is saved back on close.
 */
import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { MissingEnvironmentVariableError, ServiceValidationError } from "../errors.js";
import { type ContextHeader, readContextFile, writeContextFile } from "./contextFile.js";
import { EMPTY_PROFILE } from "./profileArchive.js";
import { type ProfileKeeper, profileKeeper } from "./profileKeeper.js";

/** A library context is named by its path, not its id: one key, any file name. */
const LOCAL = { project: "local", id: "local" };

/** WAYFARER_CONTEXT_KEY as a key, or the error that says how to make one. */
export function contextSecret(env: NodeJS.ProcessEnv = process.env): Buffer {
  const text = env.WAYFARER_CONTEXT_KEY?.trim();
  if (!text) {
    throw new MissingEnvironmentVariableError(
      "WAYFARER_CONTEXT_KEY",
      "a context file (localBrowserLaunchOptions.context): 64 hex characters, e.g. from `openssl rand -hex 32` (npm run login makes one)",
    );
  }
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new ServiceValidationError("the environment", [
      { path: ["WAYFARER_CONTEXT_KEY"], message: "expected 64 hex characters (32 bytes)" },
    ]);
  }
  return Buffer.from(text, "hex");
}

/** What restores the file's profile into the launch and, with `persist`, saves it on close. */
export async function localContextKeeper(
  context: { path: string; persist: boolean },
  warn: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProfileKeeper> {
  const secret = contextSecret(env);
  const exists = await stat(context.path).then(
    (s) => s.isFile(),
    () => false,
  );
  let created = Date.now();
  let archive: Buffer = EMPTY_PROFILE;
  if (exists) {
    const opened = await readContextFile(context.path, LOCAL, secret);
    archive = opened.profile;
    created = opened.header.createdAt;
  }
  const save = context.persist
    ? async (packed: Buffer) => {
        const header: ContextHeader = {
          v: 1,
          ...LOCAL,
          createdAt: created,
          updatedAt: Date.now(),
          bytes: packed.length,
        };
        await mkdir(dirname(context.path), { recursive: true });
        await writeContextFile(context.path, header, packed, secret);
      }
    : undefined;
  return profileKeeper(archive, save, warn);
}
