/**
 * Docs that cannot rot: every relative link in the repository's Markdown resolves to a file or
 * folder that exists, and its #anchor to a heading of that file (outside addresses are not
 * followed).
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

/** Relative link targets of a Markdown text (anchors kept), code blocks left out. */
function relativeLinks(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => decodeURIComponent(target));
}

/** The anchors GitHub gives a Markdown file's headings (a repeated one gets -1, -2, …). */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const prose = text.replace(/```[\s\S]*?```/g, "");
  for (const [, heading] of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** What is wrong with a link from `file`, or undefined when it resolves. */
function brokenReason(file: string, link: string): string | undefined {
  const [path, anchor] = link.split("#") as [string, string | undefined];
  const target = path ? join(dirname(file), path) : file;
  if (!existsSync(target)) return "no such file";
  if (anchor === undefined || statSync(target).isDirectory() || !target.endsWith(".md")) return;
  return anchorsOf(readFileSync(target, "utf8")).has(anchor) ? undefined : "no such heading";
}

describe("docs", () => {
  it("finds the links of a text, not those in code", () => {
    expect(
      relativeLinks("see [a](docs/a.md#x), [b](https://x.example), `[c](no.md)`, [d](#top)"),
    ).toEqual(["docs/a.md#x", "#top"]);
  });

  it("names headings as GitHub anchors them", () => {
    const text = "# Client options (`V3Options`)\n## The job's [guide](x.md)\n## Logs\n## Logs\n";
    expect([...anchorsOf(text)]).toEqual([
      "client-options-v3options",
      "the-jobs-guide",
      "logs",
      "logs-1",
    ]);
  });

  it("has no relative link to a file, folder or heading that does not exist", () => {
    const files = markdownFiles(ROOT);
    expect(files.map((f) => relative(ROOT, f))).toContain("README.md");
    const broken = files.flatMap((file) =>
      relativeLinks(readFileSync(file, "utf8")).flatMap((link) => {
        const reason = brokenReason(file, link);
        return reason ? [`${relative(ROOT, file)} → ${link}: ${reason}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });
});
