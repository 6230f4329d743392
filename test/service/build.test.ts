/**
 * When the build in dist/ (the service and the MCP server, one stamp) is taken as current
 * (bin/currentBuild.js), on a folder of the test's own laid out as a checkout (the real lib/ is
 * never touched: others work in this tree), and what the run's own build
 * (test/support/buildService.ts) stamped and mapped.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BUILT_ENTRY,
  BUILT_MCP_ENTRY,
  type BuildStamp,
  buildState,
  MCP_SOURCE_ENTRY,
  SOURCE_ENTRY,
  STAMP,
  STAMP_VERSION,
  sha256,
} from "../../bin/currentBuild.js";
import { buildIfStale } from "../support/buildService.js";

const ROOT = join(import.meta.dirname, "..", "..");

let root = "";
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "wayfarer-build-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (file: string, text: string) => {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
};

/** A checkout built from `files`, stamped as scripts/build.ts stamps. */
function built(files: Record<string, string>): void {
  const inputs: BuildStamp["inputs"] = {};
  for (const [file, text] of Object.entries(files)) {
    write(file, text);
    const { size, mtimeMs } = statSync(join(root, file));
    inputs[file] = { size, mtimeMs, sha256: sha256(text) };
  }
  write(BUILT_ENTRY, 'await import("./service.js");\n');
  write(BUILT_MCP_ENTRY, 'await import("./mcp.js");\n');
  write(STAMP, JSON.stringify({ version: STAMP_VERSION, inputs }));
}

describe("the build in dist/", () => {
  const SOURCES = { [SOURCE_ENTRY]: "main();\n", "lib/a.ts": "export const a = 1;\n" };

  it("is current while every file it was built from is as it was, a touch or a copy included", () => {
    built(SOURCES);
    expect(buildState(root)).toEqual({ current: true });
    // A checkout or a copy that changes the time and not the text.
    utimesSync(join(root, "lib/a.ts"), new Date(), new Date(Date.now() + 60_000));
    expect(buildState(root)).toEqual({ current: true });
  });

  it("is stale once a source changes, even to text of the same length", () => {
    built(SOURCES);
    const { atime, mtime } = statSync(join(root, "lib/a.ts"));
    write("lib/a.ts", "export const a = 2;\n");
    utimesSync(join(root, "lib/a.ts"), atime, new Date(mtime.getTime() + 1));
    expect(buildState(root)).toEqual({ current: false, why: "lib/a.ts changed since the build" });
    write("lib/a.ts", "export const a = 10;\n");
    expect(buildState(root)).toEqual({ current: false, why: "lib/a.ts changed since the build" });
  });

  it("is stale when a source is gone, and absent without its entry or its stamp", () => {
    built(SOURCES);
    rmSync(join(root, "lib/a.ts"));
    expect(buildState(root)).toEqual({ current: false, why: "lib/a.ts is gone since the build" });
    rmSync(join(root, STAMP));
    expect(buildState(root)).toEqual({ current: false, why: `no readable ${STAMP}` });
    rmSync(join(root, BUILT_ENTRY));
    expect(buildState(root)).toEqual({ current: false, why: "no build in dist/" });
  });

  it("is absent for both entries when one of them is, and of another layout with no inputs", () => {
    // One stamp covers the service and the MCP server: a build is current for both or neither.
    built(SOURCES);
    rmSync(join(root, BUILT_MCP_ENTRY));
    expect(buildState(root)).toEqual({ current: false, why: "no build in dist/" });
    built(SOURCES);
    write(STAMP, JSON.stringify({ version: STAMP_VERSION, inputs: null }));
    expect(buildState(root)).toEqual({
      current: false,
      why: `${STAMP} is of another build script`,
    });
  });

  it("is of another layout when its stamp is, and is all there is in a tree without the sources", () => {
    built(SOURCES);
    write(STAMP, JSON.stringify({ version: STAMP_VERSION + 1, inputs: {} }));
    expect(buildState(root)).toEqual({
      current: false,
      why: `${STAMP} is of another build script`,
    });
    built(SOURCES);
    rmSync(join(root, "lib"), { recursive: true });
    expect(buildState(root)).toEqual({ current: true });
  });

  it("of this checkout is current, stamps lib/ and the settings, and maps to the TypeScript", async () => {
    await buildIfStale();
    expect(buildState(ROOT)).toEqual({ current: true });
    const stamp = JSON.parse(readFileSync(join(ROOT, STAMP), "utf8")) as BuildStamp;
    expect(Object.keys(stamp.inputs)).toEqual(
      expect.arrayContaining([
        SOURCE_ENTRY,
        "lib/service/server.ts",
        MCP_SOURCE_ENTRY,
        "lib/mcp/server.ts",
        "lib/browser/launch.ts",
        "tsconfig.json",
        "scripts/build.ts",
      ]),
    );
    for (const [bundle, source] of [
      ["service", SOURCE_ENTRY],
      ["mcp", MCP_SOURCE_ENTRY],
    ]) {
      const map = JSON.parse(readFileSync(join(ROOT, "dist", `${bundle}.js.map`), "utf8")) as {
        sources: string[];
      };
      expect(map.sources).toContain(`../${source}`);
      // No package is in the bundle: each loads from node_modules when (and if) it is used.
      expect(map.sources.filter((s) => s.includes("node_modules"))).toEqual([]);
    }
  });

  it("keeps the names of the functions sent into pages as source", async () => {
    await buildIfStale();
    // `${fn.toString()}` pastes a function's text into a page script that declares its helpers
    // by their own names (`const loadEnd = …`): a function the bundle renamed to dodge a
    // clash (`loadEnd2`) would be called by a name the page does not have.
    const lib = join(ROOT, "lib");
    const pasted = new Set(
      readdirSync(lib, { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".ts"))
        .flatMap((file) => [
          ...readFileSync(join(lib, file), "utf8").matchAll(/\$\{(\w+)\.toString\(\)\}/g),
        ])
        .map((m) => m[1]!),
    );
    expect(pasted.size).toBeGreaterThan(0);
    const bundle = readFileSync(join(ROOT, "dist", "service.js"), "utf8");
    for (const name of pasted) {
      expect(bundle, name).toMatch(new RegExp(`\\bfunction ${name}\\(`));
    }
  });
});
