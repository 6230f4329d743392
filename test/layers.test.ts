/**
 * What runs on every engine holds no Playwright object: the job, the function, the client's
 * wiring, the operation path, the wire schemas and the wire's client half. Only the local
 * engine (lib/engine/local*, lib/handlers/, lib/agent/, lib/browser/, lib/snapshot/) may.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const ENGINE_FREE = [
  "lib/job",
  "api",
  "lib/client.ts",
  "lib/api",
  "lib/operations",
  "lib/engine/engine.ts",
  "lib/engine/wireOperations.ts",
];

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full).flatMap((name) => files(join(path, name)));
}

describe("layers", () => {
  it("no Playwright object where every engine runs", () => {
    // An import of playwright-core, or a reach into a page or context for the Playwright one.
    const found = ENGINE_FREE.flatMap(files)
      .filter((file) => file.endsWith(".ts"))
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .map((line, i) => [line, i + 1] as const)
          .filter(([line]) => /from ["']playwright|\.playwright(?:Page|Context)\b/.test(line))
          .map(([line, n]) => `${relative(ROOT, file)}:${n}: ${line.trim()}`),
      );
    expect(found).toEqual([]);
  });
});
