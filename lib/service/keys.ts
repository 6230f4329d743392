/**
 * API keys: project-scoped, kept only as SHA-256 digests, compared in constant time. With no
 * `WAYFARER_API_KEYS`, a key is made once for project "default", shown once, and only its digest
 * kept in the data folder; a later start reuses it, and `--new-key` replaces it. In the Python
 * SDK's local mode, its `BROWSERBASE_API_KEY` is the key of project "local" instead, and nothing
 * is written. Every start says in one line which keys open the service, and how to change them.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
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

export interface KeyOptions {
  /** `--new-key`: replace the saved key with a new one, shown once; the old one opens nothing. */
  newKey?: boolean;
}

/**
 * `told` receives one line: which keys open the service and how to change them, with a made
 * key shown in it, once, at its end.
 */
export async function loadKeys(
  given: string | undefined,
  dataDir: string,
  told: (line: string) => void,
  localMode?: LocalMode,
  options: KeyOptions = {},
): Promise<KeyRing> {
  if (given !== undefined) {
    if (options.newKey) throw notSaved("WAYFARER_API_KEYS is set: its keys are the service's");
    const pairs = parsePairs(given);
    const projects = [...new Set(pairs.map(([project]) => project))].join(", ");
    told(
      `API keys from WAYFARER_API_KEYS (projects: ${projects}); no saved key is used. To rotate one, change it there and restart`,
    );
    return ringOf(pairs, given.split(",").map(keyOf));
  }
  if (localMode) {
    if (options.newKey) throw notSaved("local mode (BB_ENV=local) takes BROWSERBASE_API_KEY");
    return localRing(localMode.key, told);
  }
  const file = resolve(dataDir, KEY_FILE);
  const stored = options.newKey ? undefined : await savedKeys(file);
  if (stored) {
    told(
      `API key: reusing the saved key of project ${Object.keys(stored)
        .map((p) => `"${p}"`)
        .join(
          ", ",
        )} (its hash, in ${file}). To rotate it, start with --new-key (a new key, shown once; the old one stops working), or set WAYFARER_API_KEYS=project:key`,
    );
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
  const what = options.newKey
    ? "a new API key replaces the saved one (the old key no longer opens anything)"
    : "a new API key, reused by later starts (--new-key replaces it)";
  told(
    `API key for project "default", ${what}; shown once, only its hash is kept in ${file}: ${key}`,
  );
  return ringOf([["default", digest(key)]], []);
}

/**
 * The saved digests; undefined when there are none yet. A file that is there but not what this
 * service writes stops the start: making a new key over it would change the key unasked.
 */
async function savedKeys(file: string): Promise<z.infer<typeof StoredKeysSchema> | undefined> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = StoredKeysSchema.safeParse(json);
  if (parsed.success && Object.keys(parsed.data).length) return parsed.data;
  throw new ServiceValidationError(file, [
    {
      path: [],
      message:
        "expected the saved key's hash as this service writes it ({project: sha256 hex}); start with --new-key to replace it with a new key",
    },
  ]);
}

/** `--new-key` where no key is saved: refused, saying where the keys come from instead. */
function notSaved(why: string): ServiceValidationError {
  return new ServiceValidationError("--new-key", [
    { path: [], message: `no saved key to replace: ${why}; change the key there` },
  ]);
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
