/**
 * The deployable bundle, traced the way the platform does (@vercel/nft) from api/run.ts, plus
 * vercel.json's includeFiles: the Chromium pack must be in it, and the whole must stay under
 * the platform's 250 MB (unzipped) limit for a function.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { nodeFileTrace, resolve as resolveDependency } from "@vercel/nft";
import { stop as stopEsbuild, transformSync } from "esbuild";
import { globSync } from "tinyglobby";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const LIMIT_BYTES = 250 * 1024 * 1024;

/** Traces, then ends esbuild's helper process (the test leaves no process behind). */
async function traced(...args: Parameters<typeof nodeFileTrace>) {
  try {
    return await nodeFileTrace(...args);
  } finally {
    stopEsbuild();
  }
}

describe("the function's bundle", () => {
  it("holds the Chromium pack and stays under 250 MB unzipped", async () => {
    const config = JSON.parse(readFileSync(join(ROOT, "vercel.json"), "utf8")) as {
      functions: Record<string, { includeFiles?: string; maxDuration?: number; memory?: number }>;
    };
    const fn = config.functions["api/run.ts"]!;
    expect(fn.maxDuration).toBe(60);
    expect(fn.memory).toBe(2048);
    // The platform compiles each .ts file and traces the output: a `./x.js` import is `./x.ts`,
    // read as the JavaScript it compiles to.
    const { fileList } = await traced([join(ROOT, "api", "run.ts")], {
      base: ROOT,
      readFile: async (path) => {
        const text = await readFile(path, "utf8").catch(() => null);
        if (text === null || !path.endsWith(".ts")) return text;
        return transformSync(text, { loader: "ts", format: "esm" }).code;
      },
      resolve: async (id, parent, job, cjs) => {
        if (id.startsWith(".") && id.endsWith(".js")) {
          const ts = join(dirname(parent), `${id.slice(0, -3)}.ts`);
          if (existsSync(ts)) return ts;
        }
        return resolveDependency(id, parent, job, cjs);
      },
    });
    const included = globSync(fn.includeFiles!, { cwd: ROOT });
    const files = new Set([...fileList, ...included]);
    expect([...files].some((f) => f.endsWith("@sparticuz/chromium/bin/chromium.br"))).toBe(true);
    expect([...files]).toContain("job.config.ts");
    // The committed action cache travels with the function.
    expect([...files]).toContain("job-cache/README.md");
    let bytes = 0;
    for (const f of files) bytes += statSync(join(ROOT, f)).size;
    console.log(`bundle: ${files.size} files, ${(bytes / 1024 / 1024).toFixed(1)} MB`);
    expect(bytes).toBeLessThan(LIMIT_BYTES);
  }, 120_000);
});
