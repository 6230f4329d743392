/**
 * Docs that cannot rot: every TypeScript block (```ts, ```typescript) of every Markdown file the
 * repository tracks or would track (git's ignore rules apply, so node_modules is left out)
 * type-checks with the repository's compiler options. Where a block sits, and so how its
 * relative imports resolve, is explained in test/support/docBlocks.ts and docs/guide/testing.md.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkBlocks, codeBlocks } from "../support/docBlocks.js";

const ROOT = join(import.meta.dirname, "..", "..");

function markdownFiles(): string[] {
  const listed = execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.md"],
    { cwd: ROOT, encoding: "utf8" },
  );
  return [...new Set(listed.split("\0"))]
    .filter((file) => file && !file.split("/").includes("node_modules"))
    .filter((file) => existsSync(join(ROOT, file)))
    .sort();
}

describe("docs' code blocks", () => {
  it("finds TypeScript blocks with their fence's line, and only those", () => {
    const text = [
      "# Title", // 1
      "```ts", // 2
      "const a = 1;", // 3
      "```", // 4
      "```sh", // 5
      "npm test", // 6
      "```", // 7
      "- item", // 8
      "  ```typescript", // 9
      "  const b = 2;", // 10
      "  ```", // 11
    ].join("\n");
    expect(codeBlocks("x.md", text)).toEqual([
      { file: "x.md", line: 2, code: "const a = 1;" },
      { file: "x.md", line: 9, code: "const b = 2;" },
    ]);
  });

  it("reports each error with its file and line, passes blocks that are fine", () => {
    // One program for all four blocks, as for the real ones.
    const text = [
      "Intro", // 1
      "```ts", // 2: fine, at the root
      'import { Client } from "./lib/index.js";', // 3
      'const client = new Client({ env: "LOCAL" });', // 4
      "await client.init();", // 5
      "```", // 6
      "```typescript", // 7: a type error on its third line
      "const n: number = 1;", // 8
      'const s: string = n + "";', // 9
      "const wrong: string = n;", // 10
      "```", // 11
      "```ts", // 12: fine, placed in test/shop/ by its first line
      "// test/shop/cart.test.ts", // 13
      'import { useModelServer } from "../support/llm/modelServer.js";', // 14
      "useModelServer();", // 15
      "```", // 16
      "```ts", // 17: the same import from the root does not resolve
      'import { useModelServer } from "../support/llm/modelServer.js";', // 18
      "useModelServer();", // 19
      "```", // 20
    ].join("\n");
    const problems = checkBlocks(ROOT, codeBlocks("docs/synthetic.md", text));
    expect(problems).toEqual([
      expect.stringMatching(
        /^docs\/synthetic\.md:10 \(block at line 7\): TS2322 Type 'number' is not assignable to type 'string'/,
      ),
      expect.stringMatching(
        /^docs\/synthetic\.md:18 \(block at line 17\): TS2307 Cannot find module '\.\.\/support\/llm\/modelServer\.js'/,
      ),
    ]);
  });

  it("type-checks every TypeScript block in the repository's Markdown", () => {
    const files = markdownFiles();
    expect(files).toContain("README.md");
    const blocks = files.flatMap((file) =>
      codeBlocks(file, readFileSync(join(ROOT, file), "utf8")),
    );
    expect(blocks.length).toBeGreaterThan(0);
    expect(checkBlocks(ROOT, blocks)).toEqual([]);
  });
});
