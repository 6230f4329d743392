/**
 * The service as it was at an earlier commit, for a bench's "before" side in the same run:
 * that commit's `lib/` unpacked by `git archive` into `.bench-before/` (gitignored) beside this
 * tree, so it resolves the same node_modules, and started as `npm run service` does.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../test/support/serviceProcess.js";

const ROOT = join(import.meta.dirname, "..");

/** `lib/service/main.ts` of `commit`, unpacked afresh (one bench at a time uses the folder). */
export function unpackBefore(commit: string): string {
  const dir = join(ROOT, ".bench-before");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  // lib/ is past execFileSync's default 1 MB of output since issue 30; package.json is read
  // by the front page for its version.
  const archive = execFileSync("git", ["archive", commit, "lib", "package.json"], {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  return join(dir, "lib", "service", "main.ts");
}

/**
 * The service at `commit` with `env(dataDir)`, a data folder of its own; undefined without a
 * commit (the bench then runs its usual other side).
 */
export async function serviceBefore(
  commit: string | undefined,
  env: (dataDir: string) => Record<string, string>,
) {
  if (!commit) return undefined;
  const main = unpackBefore(commit);
  return startService(env(await mkdtemp(join(tmpdir(), "wayfarer-bench-before-"))), main);
}
