/**
 * dist/build.json as a hostile or broken file: forged, malformed, truncated, pointing outside
 * the checkout, far too long. bin/wayfarer-service never runs a dist/ its stamp does not vouch
 * for, and never crashes on the stamp: it runs lib/ under tsx and says so on its first line.
 * On a folder of the test's own laid out as a checkout whose dist/ and lib/ only say which ran.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BUILT_ENTRY,
  BUILT_MCP_ENTRY,
  buildState,
  SOURCE_ENTRY,
  STAMP,
  STAMP_VERSION,
  sha256,
} from "../../bin/currentBuild.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SOURCE = 'process.stdout.write("ran lib/\\n");\n';

let root = "";
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "wayfarer-stamp-"));
  write(SOURCE_ENTRY, SOURCE);
  write("lib/other.ts", "export const other = 1;\n");
  // A dist/ that is not of these sources: running it is what must never happen.
  write(BUILT_ENTRY, 'process.stdout.write("ran a foreign dist/\\n");\n');
  write(BUILT_MCP_ENTRY, "");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

const stampOf = (file: string) => {
  const { size, mtimeMs } = statSync(join(root, file));
  return { size, mtimeMs };
};
const stamp = (inputs: unknown) => write(STAMP, JSON.stringify({ version: STAMP_VERSION, inputs }));
/** The service's source as the build would stamp it, beside `odd`: only `odd` can make it stale. */
const stampWith = (odd: Record<string, unknown>) =>
  stamp({ [SOURCE_ENTRY]: { ...stampOf(SOURCE_ENTRY), sha256: sha256(SOURCE) }, ...odd });

/** The entry run on the test's checkout: its stdout lines and exit status. */
function runEntry(): { lines: string[]; status: number | null } {
  cpSync(join(ROOT, "bin"), join(root, "bin"), { recursive: true });
  cpSync(join(ROOT, "tsconfig.json"), join(root, "tsconfig.json"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module" }));
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"), "dir");
  const run = spawnSync(process.execPath, [join(root, "bin", "wayfarer-service")], {
    cwd: tmpdir(),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { lines: run.stdout.split("\n").filter(Boolean), status: run.status };
}

describe("a stamp that does not vouch for dist/", () => {
  it("malformed, truncated, of another shape: stale, each saying why", () => {
    const whole = JSON.stringify({
      version: STAMP_VERSION,
      inputs: { [SOURCE_ENTRY]: { ...stampOf(SOURCE_ENTRY), sha256: sha256(SOURCE) } },
    });
    for (const text of [
      whole.slice(0, whole.length / 2),
      "",
      "null",
      "[]",
      '"x"',
      "{}",
      "\u0000",
    ]) {
      write(STAMP, text);
      expect(buildState(root), text).toMatchObject({ current: false });
    }
    for (const inputs of [null, "lib/service/main.ts", 7, true]) {
      stamp(inputs);
      expect(buildState(root)).toMatchObject({ current: false });
    }
  });

  it("naming files outside the checkout, absolute or by `..`, or an array: stale, nothing read", () => {
    const outside = mkdtempSync(join(tmpdir(), "wayfarer-stamp-outside-"));
    try {
      writeFileSync(join(outside, "x.ts"), "x");
      for (const name of [join(outside, "x.ts"), "/etc/hostname", "../../nowhere/x.ts"]) {
        stampWith({ [name]: { size: 1, mtimeMs: 1, sha256: sha256("x") } });
        expect(buildState(root)).toEqual({
          current: false,
          why: `${STAMP} names a file the build would not have read`,
        });
      }
      stamp([{ size: 1, mtimeMs: 1, sha256: sha256("x") }]);
      expect(buildState(root)).toEqual({
        current: false,
        why: `${STAMP} is of another build script`,
      });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("with a hash of another file's text, or the right hash under the wrong size: stale", () => {
    const other = "export const other = 1;\n";
    stamp({ [SOURCE_ENTRY]: { ...stampOf(SOURCE_ENTRY), mtimeMs: 1, sha256: sha256(other) } });
    expect(buildState(root)).toEqual({
      current: false,
      why: `${SOURCE_ENTRY} changed since the build`,
    });
    stamp({
      [SOURCE_ENTRY]: {
        size: SOURCE.length + 1,
        mtimeMs: stampOf(SOURCE_ENTRY).mtimeMs,
        sha256: sha256(SOURCE),
      },
    });
    expect(buildState(root)).toMatchObject({ current: false });
  });

  it("listing 100,000 files, the first gone: stale at once", () => {
    const inputs: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++)
      inputs[`lib/gone${i}.ts`] = { size: 1, mtimeMs: 1, sha256: "0" };
    inputs[SOURCE_ENTRY] = { ...stampOf(SOURCE_ENTRY), sha256: sha256(SOURCE) };
    stamp(inputs);
    expect(buildState(root)).toEqual({
      current: false,
      why: "lib/gone0.ts is gone since the build",
    });
  });

  it("through a symlink, even to the same bytes: stale (the build reads plain files only)", () => {
    const stamped = { [SOURCE_ENTRY]: { ...stampOf(SOURCE_ENTRY), sha256: sha256(SOURCE) } };
    stamp(stamped);
    expect(buildState(root)).toEqual({ current: true });
    rmSync(join(root, SOURCE_ENTRY));
    write("lib/same.ts", SOURCE);
    symlinkSync(join(root, "lib/same.ts"), join(root, SOURCE_ENTRY));
    expect(buildState(root)).toEqual({
      current: false,
      why: `${SOURCE_ENTRY} is not a plain file`,
    });
  });

  it("the entry on a truncated stamp runs lib/ under tsx, saying so first, never the dist/", () => {
    write(STAMP, JSON.stringify({ version: STAMP_VERSION, inputs: {} }).slice(0, 20));
    const { lines, status } = runEntry();
    expect(lines[0]).toMatch(
      /^wayfarer-service: running lib\/ under tsx \(no readable dist\/build\.json;/,
    );
    expect(lines.slice(1)).toEqual(["ran lib/"]);
    expect(status).toBe(0);
  });

  it("the entry on a stamp of a changed source runs lib/, and on a current one the dist/", () => {
    stamp({ [SOURCE_ENTRY]: { ...stampOf(SOURCE_ENTRY), sha256: sha256(SOURCE) } });
    write("lib/other.ts", "changed");
    stamp({
      [SOURCE_ENTRY]: { ...stampOf(SOURCE_ENTRY), sha256: sha256(SOURCE) },
      "lib/other.ts": { size: 24, mtimeMs: 1, sha256: sha256("export const other = 1;\n") },
    });
    const stale = runEntry();
    expect(stale.lines).toEqual([
      "wayfarer-service: running lib/ under tsx (lib/other.ts changed since the build; `npm run build` makes one)",
      "ran lib/",
    ]);
    // The same checkout, its stamp now true: the dist/ runs (the test's dist/ is the proof).
    stamp({ [SOURCE_ENTRY]: { ...stampOf(SOURCE_ENTRY), sha256: sha256(SOURCE) } });
    const current = execFileSync(process.execPath, [join(root, "bin", "wayfarer-service")], {
      cwd: tmpdir(),
      encoding: "utf8",
    });
    expect(current.split("\n").filter(Boolean)).toEqual([
      "wayfarer-service: running the build in dist/ (of lib/ as it is)",
      "ran a foreign dist/",
    ]);
  });
});

// Found by the attack pass and mended in bin/currentBuild.js: each was what a forged or broken
// stamp did before.
describe("a stamp that does not vouch for dist/ (once reported defects)", () => {
  it("listing no files at all: stale (it vouched for any dist/)", () => {
    stamp({});
    expect(buildState(root)).toMatchObject({ current: false });
  });

  it("with an entry that is null, or a folder: stale, not thrown (the entry crashed)", () => {
    stamp({ [SOURCE_ENTRY]: null });
    expect(buildState(root)).toMatchObject({ current: false });
    stampWith({ lib: { size: stampOf("lib").size, mtimeMs: 1, sha256: "0" } });
    expect(buildState(root)).toEqual({ current: false, why: "lib is not a plain file" });
  });

  it("naming a file by a spelling the build never writes (`./`, `//`, `..`): stale (each of 100,000 spellings of one file was hashed: 9 s here)", () => {
    const stamped = { ...stampOf(SOURCE_ENTRY), mtimeMs: 1, sha256: sha256(SOURCE) };
    for (const name of [
      "lib/./service/main.ts",
      "lib//service/main.ts",
      "lib/x/../service/main.ts",
      "lib\\service\\main.ts",
      // A second line for the entry's first: "running lib/ …" would read as something else.
      "lib/other.ts\nwayfarer-service: running the build in dist/",
    ]) {
      stampWith({ [name]: stamped });
      expect(buildState(root), name).toEqual({
        current: false,
        why: `${STAMP} names a file the build would not have read`,
      });
    }
  });

  it("naming a FIFO, or /dev/zero by `..`: stale at once (it hung)", () => {
    execFileSync("mkfifo", [join(root, "lib/fifo")]);
    for (const name of ["lib/fifo", `${"../".repeat(20)}dev/zero`]) {
      stampWith({ [name]: { size: 0, mtimeMs: 1, sha256: "0" } });
      const run = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { buildState } from ${JSON.stringify(join(ROOT, "bin/currentBuild.js"))}; console.log(JSON.stringify(buildState(${JSON.stringify(root)})));`,
        ],
        { encoding: "utf8", timeout: 10_000 },
      );
      expect(JSON.parse(run.stdout || "null"), name).toMatchObject({ current: false });
    }
  });
});
