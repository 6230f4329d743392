/**
 * deploy/wayfarer.service and deploy/Dockerfile, as docs/guide/service.md shows them: the unit
 * passes systemd's own check (systemd-analyze verify, its paths pointed at this checkout) and
 * runs node on the entry with SIGTERM to it alone and time to stop; the Dockerfile builds in one
 * stage and runs node on the built entry in the other, what it copies exists (everything the
 * build reads, everything the built service reads), and its Node meets the floor. (What SIGTERM
 * then does is test/service/entry.test.ts's.) No container is built here: no Docker daemon or
 * base image.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { loadKeys } from "../../lib/service/keys.js";

const ROOT = join(import.meta.dirname, "..", "..");
const UNIT = readFileSync(join(ROOT, "deploy", "wayfarer.service"), "utf8");
const DOCKERFILE = readFileSync(join(ROOT, "deploy", "Dockerfile"), "utf8");
/** The service's own deadline for ending every session (lib/service/main.ts). */
const SERVICE_STOP_S = 20;

/** Every `Key=value` of a unit or Dockerfile-like text, comments left out. */
const settings = (text: string, separator: "=" | " ") =>
  text
    .split("\n")
    .filter((l) => l.trim() && !l.trimStart().startsWith("#") && l.includes(separator))
    .map((l) => [
      l.slice(0, l.indexOf(separator)).trim(),
      l.slice(l.indexOf(separator) + 1).trim(),
    ]);

/** systemd logs to the journal when it can; its verdict is wanted here, on stderr. */
const LOG_TO_STDERR = {
  ...process.env,
  SYSTEMD_LOG_TARGET: "console",
  SYSTEMD_LOG_LEVEL: "notice",
};
const hasAnalyze = spawnSync("systemd-analyze", ["--version"]).status === 0;

describe("deploy/wayfarer.service", () => {
  const unit = Object.fromEntries(settings(UNIT, "="));

  it("runs node on the entry, SIGTERM to it alone, with more time to stop than the service takes", () => {
    expect(unit.ExecStart).toBe("/usr/bin/node /opt/wayfarer/bin/wayfarer-service");
    expect(unit.KillSignal).toBe("SIGTERM");
    expect(unit.KillMode).toBe("mixed");
    expect(Number(unit.TimeoutStopSec)).toBeGreaterThan(SERVICE_STOP_S);
    expect(unit.EnvironmentFile).toBeDefined();
    expect(UNIT).toContain("Environment=WAYFARER_DATA_DIR=/var/lib/wayfarer");
    expect(unit.StateDirectory).toBe("wayfarer");
  });

  it.skipIf(!hasAnalyze)("passes systemd-analyze verify, pointed at this checkout", () => {
    const folder = mkdtempSync(join(tmpdir(), "wayfarer-unit-"));
    try {
      writeFileSync(join(folder, "env"), "WAYFARER_API_KEYS=ops:a-key-of-sixteen-or-more\n");
      const here = UNIT.replaceAll("/opt/wayfarer", ROOT).replace(
        "EnvironmentFile=/etc/wayfarer/env",
        `EnvironmentFile=${join(folder, "env")}`,
      );
      writeFileSync(join(folder, "wayfarer.service"), here);
      const checked = spawnSync("systemd-analyze", ["verify", join(folder, "wayfarer.service")], {
        encoding: "utf8",
        env: LOG_TO_STDERR,
      });
      expect(checked.stderr).toBe("");
      expect(checked.status).toBe(0);
      // And a broken unit is caught by the same check: the test can fail.
      writeFileSync(
        join(folder, "wayfarer.service"),
        here.replace(/^KillMode=mixed$/m, "KillMode=no-such-mode"),
      );
      const broken = spawnSync("systemd-analyze", ["verify", join(folder, "wayfarer.service")], {
        encoding: "utf8",
        env: LOG_TO_STDERR,
      });
      expect(broken.stderr).toContain("no-such-mode");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("deploy/Dockerfile", () => {
  /** Its stages, each its instructions: the build, then what runs. */
  const stages = DOCKERFILE.split(/^(?=FROM )/m)
    .filter((part) => part.startsWith("FROM "))
    .map((part) => settings(part, " "));
  const all = (instruction: string, stage = stages.at(-1)!) =>
    stage.filter(([i]) => i === instruction).map(([, v]) => v!);
  /** The paths a stage copies from the build context (not from another stage). */
  const copied = (stage: (typeof stages)[number]) =>
    all("COPY", stage)
      .filter((v) => !v.startsWith("--from="))
      .flatMap((v) => v.split(/\s+/).slice(0, -1));

  it("runs node on the built entry, in exec form, and stops it with SIGTERM", () => {
    expect(stages).toHaveLength(2);
    expect(all("ENTRYPOINT")).toEqual(['["node", "/opt/wayfarer/dist/wayfarer-service.js"]']);
    expect(all("STOPSIGNAL")).toEqual(["SIGTERM"]);
    expect(all("WORKDIR")).toEqual(["/opt/wayfarer"]);
    // The build, made by the first stage's npm ci (prepare), is what the second copies.
    expect(all("RUN", stages[0])).toEqual(["npm ci --no-audit --no-fund"]);
    expect(all("COPY")).toContain("--from=build /opt/wayfarer/dist ./dist");
  });

  it("copies files that exist: what the build reads, then what the built service reads", () => {
    for (const source of stages.flatMap(copied)) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
    }
    // What scripts/build.ts reads: the settings, the entry's stamp check, lib/ (the service).
    expect(copied(stages[0]!)).toEqual(
      expect.arrayContaining([
        "package.json",
        "package-lock.json",
        "tsconfig.json",
        "bin",
        "scripts/build.ts",
        "lib",
      ]),
    );
    // What the built service reads from its sources' places: package.json, and every file of
    // lib/ that is not compiled into it (the dashboard's pages).
    const runtime = copied(stages[1]!);
    expect(runtime).toContain("package.json");
    const assets = readdirSync(join(ROOT, "lib"), { recursive: true, encoding: "utf8" }).filter(
      (file) => !file.endsWith(".ts") && statSync(join(ROOT, "lib", file)).isFile(),
    );
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(
        runtime.some((source) => `lib/${asset}`.startsWith(`${source}/`)),
        `lib/${asset}`,
      ).toBe(true);
    }
    const lib = join(ROOT, "lib");
    const outside = readdirSync(lib, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .flatMap((file) => {
        const text = readFileSync(join(lib, file), "utf8");
        return [...text.matchAll(/(?:from|import\()\s*["'](\.[^"']+)["']/g)]
          .filter((m) => !resolve(lib, dirname(file), m[1]!).startsWith(`${lib}/`))
          .map((m) => `${file}: ${m[1]}`);
      });
    expect(outside, "imports in lib/ of files the image does not copy").toEqual([]);
  });

  it("shows a run command whose WAYFARER_API_KEYS the service takes", async () => {
    const given = /-e (WAYFARER_API_KEYS=(?:\$\([^)]*\)|\S)+)/.exec(DOCKERFILE)?.[1];
    expect(given).toBeDefined();
    // As a shell expands it, then as the service reads it at start.
    const expanded = spawnSync("bash", ["-c", `echo ${given}`], { encoding: "utf8" }).stdout.trim();
    const value = expanded.slice("WAYFARER_API_KEYS=".length);
    expect(value).toMatch(/^myproject:[0-9a-f]{48}$/);
    const said: string[] = [];
    const ring = await loadKeys(value, tmpdir(), (line) => said.push(line));
    expect(ring.projectOf(value.split(":")[1])).toBe("myproject");
  });

  it("starts from a Node line the floor admits", () => {
    const floor = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).engines.node;
    for (const stage of stages) {
      const major = all("FROM", stage)[0]!.match(/^node:(\d+)/)?.[1];
      expect(major).toBeDefined();
      // The image's tag follows its line's latest release.
      expect(semver.satisfies(`${major}.99.0`, floor)).toBe(true);
    }
  });
});
