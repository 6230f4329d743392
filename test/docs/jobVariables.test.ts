/**
 * One list of the job's variables: every `JOB_*` name the README, job.config.ts and the job's
 * guide mention is one the job reads (lib/envVars.ts, from which the environment reference is
 * generated), and the guide names each of them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_VARS } from "../../lib/envVars.js";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** JOB_VAR_<NAME>, JOB_VAR_NAME and JOB_VAR_PASSWORD are one variable: JOB_VAR_<NAME>. */
function named(text: string): Set<string> {
  const found = text.match(/\bJOB_[A-Z_]+(?:<NAME>)?/g) ?? [];
  return new Set(
    found.map((n) => n.replace(/^(JOB_VAR_|JOB_ORIGINS_)(?:<NAME>|[A-Z_]+)$/, "$1<NAME>")),
  );
}

describe("the job's variables", () => {
  const known = ENV_VARS.map((v) => v.name).filter((n) => n.startsWith("JOB_"));

  it("are the ones the job reads, wherever they are named", () => {
    expect(known.length).toBeGreaterThan(5);
    for (const file of ["README.md", "job.config.ts", "docs/guide/job.md"]) {
      // A workflow's own variable (vars.JOB_ENDPOINT) is a GitHub setting, not the job's.
      const unknown = [...named(read(file))].filter(
        (n) => !known.includes(n) && n !== "JOB_ENDPOINT",
      );
      expect(unknown, file).toEqual([]);
    }
  });

  it("are each named in the job's guide", () => {
    const guide = named(read("docs/guide/job.md"));
    expect(known.filter((n) => !guide.has(n))).toEqual([]);
  });
});
