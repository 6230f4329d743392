/**
 * The README shows `job.config.ts` as it is: its job block is the file, less the file's opening
 * comment, character for character. Change one and the other, or this fails.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeBlocks } from "../support/docBlocks.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** The file's code: what follows its opening doc comment. */
function withoutOpeningComment(source: string): string {
  const match = /^\/\*\*[\s\S]*?\*\/\n+/.exec(source);
  return (match ? source.slice(match[0].length) : source).trimEnd();
}

describe("the README's job.config.ts", () => {
  it("is the file as it is", () => {
    const readme = codeBlocks("README.md", readFileSync(join(ROOT, "README.md"), "utf8"));
    const shown = readme.filter((b) => /export const job\b/.test(b.code));
    expect(shown, "README blocks that show the job").toHaveLength(1);
    const file = readFileSync(join(ROOT, "job.config.ts"), "utf8");
    expect(shown[0]!.code.trimEnd()).toBe(withoutOpeningComment(file));
  });
});
