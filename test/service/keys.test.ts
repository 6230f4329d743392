/**
 * Which keys open the service: WAYFARER_API_KEYS, the made key of project "default" (reused by
 * later starts, replaced by --new-key), and the Python SDK's local mode (BB_ENV=local), where
 * BROWSERBASE_API_KEY is the key of project "local" on a loopback address only; and the one
 * line each start says about them. Real files in a data folder of the test's own.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SECRET_ENV_VARS } from "../../lib/envVars.js";
import { ServiceValidationError } from "../../lib/errors.js";
import { serviceConfig } from "../../lib/service/config.js";
import { loadKeys } from "../../lib/service/keys.js";

const GIVEN = "wayfarer-project-key-0123456789";
const LOCAL = "any value";

let dataDir = "";
let lines: string[] = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wayfarer-keys-"));
  lines = [];
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** The ring the service would start with under `env`, its lines collected. */
async function ringUnder(env: Record<string, string>, options: { newKey?: boolean } = {}) {
  const config = serviceConfig({ WAYFARER_DATA_DIR: dataDir, ...env });
  return loadKeys(config.apiKeys, config.dataDir, (l) => lines.push(l), config.localMode, options);
}

/** The key a start showed in its line (a made key ends the line). */
const shownKey = () => lines.at(-1)?.match(/: (wf_[\w-]+)$/)?.[1];

describe("local mode (BB_ENV=local)", () => {
  it.each(["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])(
    "takes BROWSERBASE_API_KEY, any value, as project local's key on %s, writing nothing",
    async (host) => {
      const ring = await ringUnder({ BB_ENV: "local", BROWSERBASE_API_KEY: LOCAL, HOST: host });
      expect(ring.projectOf(LOCAL)).toBe("local");
      expect(ring.projectOf("another value")).toBeUndefined();
      expect(ring.projectOf(undefined)).toBeUndefined();
      expect(ring.secrets).toEqual([LOCAL]);
      expect(await readdir(dataDir)).toEqual([]);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('project "local"');
      // Shown nowhere, only its digest compared.
      expect(lines[0]).not.toContain(LOCAL);
    },
  );

  it.each(["0.0.0.0", "::", "192.168.1.10", "example.org"])(
    "refuses to start on %s with only BROWSERBASE_API_KEY, saying why and what to set",
    (host) => {
      const start = () =>
        serviceConfig({ BB_ENV: "local", BROWSERBASE_API_KEY: LOCAL, HOST: host });
      expect(start).toThrow(ServiceValidationError);
      expect(start).toThrow(/only on a loopback address/);
      expect(start).toThrow(/WAYFARER_API_KEYS=project:key/);
      expect(start).toThrow(/at the service's environment\.HOST/);
      expect(start).not.toThrow(new RegExp(LOCAL));
    },
  );

  it("lets WAYFARER_API_KEYS win, on any host", async () => {
    const ring = await ringUnder({
      BB_ENV: "local",
      BROWSERBASE_API_KEY: LOCAL,
      WAYFARER_API_KEYS: `mine:${GIVEN}`,
      HOST: "0.0.0.0",
    });
    expect(ring.projectOf(GIVEN)).toBe("mine");
    expect(ring.projectOf(LOCAL)).toBeUndefined();
    expect(lines).toEqual([
      "API keys from WAYFARER_API_KEYS (projects: mine); no saved key is used. To rotate one, change it there and restart",
    ]);
  });

  it("without any key starts, opens to no key, says in one line how to give one", async () => {
    const ring = await ringUnder({ BB_ENV: "local", BROWSERBASE_API_KEY: "", HOST: "0.0.0.0" });
    expect(ring.projectOf("")).toBeUndefined();
    expect(ring.projectOf(LOCAL)).toBeUndefined();
    expect(await readdir(dataDir)).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/BROWSERBASE_API_KEY/);
    expect(lines[0]).toMatch(/x-bb-api-key/);
    expect(lines[0]).toMatch(/WAYFARER_API_KEYS/);
  });

  it("keeps its data in the user's cache, not the folder it was started from", () => {
    const cache = join(dataDir, "xdg");
    expect(serviceConfig({ BB_ENV: "local", XDG_CACHE_HOME: cache }).dataDir).toBe(
      join(cache, "wayfarer", "local"),
    );
    expect(serviceConfig({ BB_ENV: "local" }).dataDir).toBe(
      join(homedir(), ".cache", "wayfarer", "local"),
    );
    expect(serviceConfig({ BB_ENV: "local", WAYFARER_DATA_DIR: dataDir }).dataDir).toBe(dataDir);
    // Not local mode: the folder it always was.
    expect(serviceConfig({}).dataDir).toBe(".wayfarer");
    expect(serviceConfig({ BB_ENV: "local", WAYFARER_API_KEYS: `a:${GIVEN}` }).dataDir).toBe(
      ".wayfarer",
    );
  });

  it("says at start-up that HEADLESS=false is ignored, and nothing for true", () => {
    expect(serviceConfig({ HEADLESS: "false" }).notes).toEqual([
      "HEADLESS=false is ignored: the service runs every browser headless",
    ]);
    expect(serviceConfig({ HEADLESS: "true" }).notes).toEqual([]);
    expect(serviceConfig({}).notes).toEqual([]);
  });

  it("counts MODEL_API_KEY and BROWSERBASE_API_KEY as secrets, MODEL_API_KEY never as a key", async () => {
    // The redactor scrubs the values of these wherever they show up.
    expect(SECRET_ENV_VARS).toEqual(
      expect.arrayContaining(["MODEL_API_KEY", "BROWSERBASE_API_KEY"]),
    );
    const env = { MODEL_API_KEY: "sk-env-model-0123456789", BROWSERBASE_API_KEY: LOCAL };
    const ring = await ringUnder({ ...env, BB_ENV: "local" });
    expect(ring.projectOf(env.MODEL_API_KEY)).toBeUndefined();
  });
});

describe("outside local mode", () => {
  it("ignores BROWSERBASE_API_KEY and makes a key for project default, kept as a digest", async () => {
    const ring = await ringUnder({ BROWSERBASE_API_KEY: LOCAL, HOST: "0.0.0.0" });
    expect(ring.projectOf(LOCAL)).toBeUndefined();
    const made = lines.join("\n").match(/: (wf_[\w-]+)$/)?.[1];
    expect(made).toBeDefined();
    expect(ring.projectOf(made)).toBe("default");
    const stored = await readFile(join(dataDir, "keys.json"), "utf8");
    expect(stored).not.toContain(made!);
    expect(existsSync(join(dataDir, "keys.json"))).toBe(true);
  });

  it.each(["production", "dev", ""])("treats BB_ENV=%j as not local", async (value) => {
    const ring = await ringUnder({ BB_ENV: value, BROWSERBASE_API_KEY: LOCAL });
    expect(ring.projectOf(LOCAL)).toBeUndefined();
    expect(lines.join("\n")).toMatch(/project "default"/);
  });
});

describe("the saved key at start-up", () => {
  it("is made once, then reused by every start, which says so, where it is kept, and how to rotate it", async () => {
    const first = await ringUnder({});
    const made = shownKey();
    expect(made).toBeDefined();
    expect(lines[0]).toContain("reused by later starts (--new-key replaces it)");
    expect(first.projectOf(made)).toBe("default");

    lines = [];
    const again = await ringUnder({});
    expect(again.projectOf(made)).toBe("default");
    expect(lines).toEqual([
      `API key: reusing the saved key of project "default" (its hash, in ${join(dataDir, "keys.json")}). To rotate it, start with --new-key (a new key, shown once; the old one stops working), or set WAYFARER_API_KEYS=project:key`,
    ]);
    // Never shown again.
    expect(lines[0]).not.toContain(made!);
  });

  it("is replaced by --new-key: the new key shown once, the old one opens nothing, the next start reuses the new one", async () => {
    await ringUnder({});
    const old = shownKey()!;
    lines = [];
    const rotated = await ringUnder({}, { newKey: true });
    const fresh = shownKey()!;
    expect(fresh).toMatch(/^wf_/);
    expect(fresh).not.toBe(old);
    expect(lines[0]).toContain("replaces the saved one (the old key no longer opens anything)");
    expect(rotated.projectOf(fresh)).toBe("default");
    expect(rotated.projectOf(old)).toBeUndefined();
    const stored = await readFile(join(dataDir, "keys.json"), "utf8");
    expect(stored).not.toContain(fresh);

    lines = [];
    const later = await ringUnder({});
    expect(later.projectOf(fresh)).toBe("default");
    expect(later.projectOf(old)).toBeUndefined();
    expect(lines[0]).toMatch(/^API key: reusing the saved key/);
  });

  it("refuses --new-key where no saved key is used, saying where the keys come from", async () => {
    await expect(
      ringUnder({ WAYFARER_API_KEYS: `mine:${GIVEN}` }, { newKey: true }),
    ).rejects.toThrow(/--new-key[\s\S]*WAYFARER_API_KEYS is set/);
    await expect(
      ringUnder(
        { BB_ENV: "local", BROWSERBASE_API_KEY: LOCAL, HOST: "127.0.0.1" },
        { newKey: true },
      ),
    ).rejects.toThrow(/--new-key[\s\S]*BROWSERBASE_API_KEY/);
    // Nothing written either way.
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("stops at a keys file it did not write rather than change the key unasked; --new-key replaces it", async () => {
    const file = join(dataDir, "keys.json");
    for (const text of ["not json", "{}", '{"default":"short"}']) {
      await writeFile(file, text);
      await expect(ringUnder({})).rejects.toThrow(/keys\.json[\s\S]*--new-key/);
      expect(await readFile(file, "utf8")).toBe(text);
    }
    const replaced = await ringUnder({}, { newKey: true });
    expect(replaced.projectOf(shownKey())).toBe("default");
  });
});
