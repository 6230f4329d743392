/**
 * Docs that cannot rot: every relative link in the repository's Markdown resolves to a file or
 * folder that exists (anchors and outside addresses are not followed).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SKIP = new Set(["node_modules", ".git", "inference_summary"]);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

/** Relative link targets of a Markdown text, code blocks left out. */
function relativeLinks(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(target))
    .map((target) => decodeURIComponent(target.split("#")[0]!));
}

describe("docs", () => {
  it("finds the links of a text, not those in code", () => {
    expect(
      relativeLinks("see [a](docs/a.md#x), [b](https://x.example), `[c](no.md)`, [d](#top)"),
    ).toEqual(["docs/a.md"]);
  });

  it("has no relative link to a file or folder that does not exist", () => {
    const files = markdownFiles(ROOT);
    expect(files.map((f) => relative(ROOT, f))).toContain("README.md");
    const broken = files.flatMap((file) =>
      relativeLinks(readFileSync(file, "utf8"))
        .filter((target) => !existsSync(join(dirname(file), target)))
        .map((target) => `${relative(ROOT, file)} → ${target}`),
    );
    expect(broken).toEqual([]);
  });
});
