/**
 * One Node.js floor: package.json's `engines` is the one the docs state, in the same words
 * wherever they name a version, the Node running the tests (CI's) meets it, and so does every
 * installed package's own `engines`, but for the two listed below, each with the reason it
 * runs anyway, which this test checks by loading it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const FLOOR = "^20.19.0 || >=22.13.0";
/** How the docs say it. */
const STATED = "Node.js 20.19+ or 22.13+";
/** The lowest release of each line the floor admits: what every package must run on. */
const LOWEST = ["20.19.0", "22.13.0"];

/**
 * Packages whose `engines` leave out part of the floor, and why they run there anyway. Each is
 * loaded from where its parent would load it, so a change that breaks it fails here.
 */
const RUN_ANYWAY: Record<string, { from: string; why: string }> = {
  // ESM only, required by light-my-request (fastify's inject()): Node 20.19 and 22.12 load
  // ES modules by require() without a flag.
  cookie: { from: "node_modules/light-my-request", why: "require(esm), Node 20.19+" },
  // Plain CommonJS using nothing past Node 18: `>=22` is its maintainers' support policy.
  "content-disposition": {
    from: "node_modules/@fastify/static",
    why: "no API past Node 18; >=22 is a support policy",
  },
};

const packageJson = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

/** Every installed package: name, version, engines.node, folder. */
function installed(): { name: string; version: string; node?: string; dir: string }[] {
  const found: { name: string; version: string; node?: string; dir: string }[] = [];
  const walk = (folder: string) => {
    if (!existsSync(folder)) return;
    for (const name of readdirSync(folder)) {
      if (name.startsWith(".")) continue;
      const dir = join(folder, name);
      if (name.startsWith("@")) {
        walk(dir);
        continue;
      }
      if (!existsSync(join(dir, "package.json"))) continue;
      const pkg = packageJson(dir);
      const node = typeof pkg.engines?.node === "string" ? pkg.engines.node : undefined;
      found.push({ name: pkg.name, version: pkg.version, node, dir });
      walk(join(dir, "node_modules"));
    }
  };
  walk(join(ROOT, "node_modules"));
  return found;
}

describe("the Node.js floor", () => {
  it("is package.json's engines, and this Node meets it", () => {
    expect(packageJson(ROOT).engines).toEqual({ node: FLOOR });
    expect(semver.satisfies(process.version, FLOOR)).toBe(true);
  });

  it("is stated in the same words wherever the docs name a Node.js version", () => {
    const files = execFileSync(
      "git",
      ["ls-files", "--cached", "--others", "--exclude-standard", "--", "*.md"],
      { cwd: ROOT, encoding: "utf8" },
    )
      .split("\n")
      .filter((f) => f && !f.split("/").includes("node_modules") && existsSync(join(ROOT, f)));
    const stating: string[] = [];
    const other: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), "utf8");
      if (text.includes(STATED)) stating.push(file);
      // "Node.js 20.11 or later", "Node 22.x or newer": a version floor said another way.
      // "Node 20 or later", "Node.js 22+": the same with no minor version.
      for (const m of text.matchAll(
        /Node(?:\.js)? v?\d+(?:\.(?:\d+|x)\+?(?: or (?:later|newer)| or \d+\.\d+\+)?|\+(?![\d.])| or (?:later|newer|above))/g,
      )) {
        if (!text.slice(m.index).startsWith(STATED)) other.push(`${file}: ${m[0]}`);
      }
    }
    expect(other).toEqual([]);
    expect(stating).toEqual(
      expect.arrayContaining([
        "README.md",
        "docs/guide/getting-started.md",
        "docs/guide/clients.md",
        "docs/guide/job.md",
        "docs/guide/mcp.md",
      ]),
    );
  });

  it("is met by every installed package's engines, but those that run anyway, which load here", () => {
    const below = installed().filter(
      (p) => p.node && !LOWEST.every((v) => semver.satisfies(v, p.node!)),
    );
    expect(
      below.map((p) => p.name).filter((name) => !(name in RUN_ANYWAY)),
      "packages that need more than the floor",
    ).toEqual([]);
    for (const [name, { from, why }] of Object.entries(RUN_ANYWAY)) {
      const load = createRequire(join(ROOT, from, "package.json"));
      expect(() => load(name), `${name} (${why})`).not.toThrow();
    }
  });
});
