/**
 * bin/wayfarer-mcp runs the build in dist/ while it is of the sources as they are, and lib/
 * under tsx otherwise, saying which on stderr only (stdout is the protocol's). On a checkout of
 * the test's own, copied from this one and built there (others edit lib/ in this tree meanwhile:
 * the real dist/ may turn stale under the test), started by the SDK's client as a config does.
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { stop } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_SOURCE_ENTRY, STAMP, STAMP_VERSION } from "../../bin/currentBuild.js";
import { buildDist } from "../../scripts/build.js";

const ROOT = join(import.meta.dirname, "..", "..");

let checkout = "";
beforeAll(async () => {
  checkout = mkdtempSync(join(tmpdir(), "wayfarer-mcp-build-"));
  for (const path of ["lib", "bin", "scripts/build.ts", "tsconfig.json", "package.json"]) {
    cpSync(join(ROOT, path), join(checkout, path), { recursive: true });
  }
  symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"), "dir");
  try {
    await buildDist(checkout);
  } finally {
    // esbuild's helper process would outlive the test otherwise.
    await stop();
  }
}, 120_000);
afterAll(() => {
  if (checkout) rmSync(checkout, { recursive: true, force: true });
});

/** tools/list of the checkout's entry, what it said on stderr, and any line that broke JSON-RPC. */
async function listed(): Promise<{ tools: Tool[]; stderr: string; errors: Error[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(checkout, "bin", "wayfarer-mcp")],
    env: { PATH: process.env.PATH ?? "" },
    cwd: tmpdir(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const errors: Error[] = [];
  const client = new Client({ name: "build-test", version: "1.0.0" });
  client.onerror = (error) => errors.push(error);
  try {
    await client.connect(transport).catch((error: unknown) => {
      throw new Error(`the server did not start: ${String(error)}\n${stderr}`);
    });
    const { tools } = await client.listTools();
    return { tools, stderr, errors };
  } finally {
    await client.close();
  }
}

describe("bin/wayfarer-mcp", () => {
  let built: Awaited<ReturnType<typeof listed>>;

  it("runs the current build, whose tools are those of lib/, with stdout left to the protocol", async () => {
    built = await listed();
    expect(built.stderr).toContain("wayfarer-mcp: running the build in dist/");
    expect(built.stderr).not.toContain("under tsx");
    expect(built.errors).toEqual([]);
    expect(built.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["open", "read", "click", "fill_form", "tabs"]),
    );
  }, 60_000);

  it("runs lib/ under tsx once a source changed, answering tools/list as the build did", async () => {
    // The same length and a new mtime would do too: the hash decides (test/service/build.test.ts).
    const main = join(checkout, MCP_SOURCE_ENTRY);
    cpSync(main, `${main}.orig`);
    writeFileSync(main, `${readFileSync(main, "utf8")}\n// edited\n`);
    try {
      const tsx = await listed();
      expect(tsx.stderr).toContain(
        `wayfarer-mcp: running lib/ under tsx (${MCP_SOURCE_ENTRY} changed since the build;`,
      );
      expect(tsx.errors).toEqual([]);
      expect(tsx.tools).toEqual(built.tools);
    } finally {
      cpSync(`${main}.orig`, main);
      rmSync(`${main}.orig`);
    }
  }, 60_000);

  it("runs lib/ under tsx when the stamp is not one this build script writes", async () => {
    // An older script's stamp (the service alone), then a stamp that names no files at all.
    for (const [stamp, why] of [
      [{ version: STAMP_VERSION - 1, inputs: {} }, `${STAMP} is of another build script`],
      [{ version: STAMP_VERSION, inputs: null }, `${STAMP} is of another build script`],
      ["{ not json", `no readable ${STAMP}`],
    ] as const) {
      mkdirSync(join(checkout, "dist"), { recursive: true });
      writeFileSync(
        join(checkout, STAMP),
        typeof stamp === "string" ? stamp : JSON.stringify(stamp),
      );
      const tsx = await listed();
      expect(tsx.stderr).toContain(`wayfarer-mcp: running lib/ under tsx (${why};`);
      expect(tsx.tools).toEqual(built.tools);
    }
  }, 120_000);
});
