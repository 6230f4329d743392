/**
 * API keys: project-scoped, kept only as SHA-256 digests, compared in constant time. With no
 * `WAYFARER_API_KEYS`, a key is made once for project "default", shown once, and only its digest
 * kept in the data folder; in the Python SDK's local mode, its `BROWSERBASE_API_KEY` is the key of
 * project "local" instead, and nothing is written.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ServiceValidationError } from "../errors.js";
import type { LocalMode } from "./config.js";

export interface KeyRing {
  /** The project a presented key belongs to; undefined for a missing or unknown key. */
  projectOf(presented: string | undefined): string | undefined;
  /** The keys given in the environment, for the redactor. */
  secrets: string[];
}

const digest = (key: string) => createHash("sha256").update(key).digest();

const StoredKeysSchema = z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/));
const KEY_FILE = "keys.json";

/** `told` receives the one line that shows a made key, once, or says whose key local mode takes. */
export async function loadKeys(
  given: string | undefined,
  dataDir: string,
  told: (line: string) => void,
  localMode?: LocalMode,
): Promise<KeyRing> {
  if (given !== undefined) return ringOf(parsePairs(given), given.split(",").map(keyOf));
  if (localMode) return localRing(localMode.key, told);
  const file = join(dataDir, KEY_FILE);
  const stored = await readFile(file, "utf8").then(
    (text) => StoredKeysSchema.parse(JSON.parse(text)),
    () => undefined,
  );
  if (stored) {
    return ringOf(
      Object.entries(stored).map(([project, hex]) => [project, Buffer.from(hex, "hex")]),
      [],
    );
  }
  const key = `wf_${randomBytes(24).toString("base64url")}`;
  await mkdir(dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ default: digest(key).toString("hex") }), {
    mode: 0o600,
  });
  await rename(temporary, file);
  told(`API key for project "default" (shown once; only its hash is kept in ${file}): ${key}`);
  return ringOf([["default", digest(key)]], []);
}

/**
 * The key a local-mode client sends is the one its user set, so a made key would open nothing
 * for them: without one, every call is refused and the line says how to give one.
 */
function localRing(key: string | undefined, told: (line: string) => void): KeyRing {
  if (!key) {
    told(
      "local mode (BB_ENV=local) without an API key: every call is refused (401) until the client sends one in x-bb-api-key; set BROWSERBASE_API_KEY (any value) where the client runs, or WAYFARER_API_KEYS=project:key here",
    );
    return ringOf([], []);
  }
  told(
    'local mode (BB_ENV=local): BROWSERBASE_API_KEY is the API key of project "local" (x-bb-api-key); WAYFARER_API_KEYS would replace it',
  );
  return ringOf([["local", digest(key)]], [key]);
}

function keyOf(pair: string): string {
  return pair.slice(pair.indexOf(":") + 1).trim();
}

function parsePairs(given: string): [string, Buffer][] {
  const pairs = given.split(",").map((p) => p.trim());
  const bad = pairs.findIndex((p) => !/^[\w.-]+:\S{16,}$/.test(p));
  if (bad !== -1 || !pairs.length) {
    throw new ServiceValidationError("WAYFARER_API_KEYS", [
      {
        path: [bad === -1 ? 0 : bad],
        message: "expected project:key pairs, comma-separated, each key of 16 characters or more",
      },
    ]);
  }
  return pairs.map((p) => [p.slice(0, p.indexOf(":")), digest(keyOf(p))]);
}

function ringOf(entries: [string, Buffer][], secrets: string[]): KeyRing {
  return {
    secrets,
    projectOf(presented) {
      if (!presented) return undefined;
      const seen = digest(presented);
      let found: string | undefined;
      // Every entry is compared, whichever matches: the time says nothing about which.
      for (const [project, stored] of entries) {
        if (timingSafeEqual(seen, stored)) found ??= project;
      }
      return found;
    },
  };
}
