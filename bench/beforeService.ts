/**
 * The service as it was at an earlier commit, for a bench's "before" side in the same run:
 * that commit's `lib/` unpacked by `git archive` into `.bench-before/<sha>/` (gitignored) beside
 * this tree, so it resolves the same node_modules, and started as `npm run service` does.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../test/support/serviceProcess.js";

const ROOT = join(import.meta.dirname, "..");

/**
 * The tree of `commit` (its `lib/` and package.json), unpacked once into a folder of its own and
 * reused: benches running at once with other commits, or the same one, never unpack over each
 * other. It is unpacked beside its final place and renamed there in one step, so a folder under
 * its commit's name is always whole; of two benches unpacking the same commit, the second to
 * finish drops its copy. Throws when the commit is not in this clone.
 */
export function beforeTree(commit: string): string {
  const sha = execFileSync("git", ["rev-parse", "--verify", `${commit}^{commit}`], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
  const dir = join(ROOT, ".bench-before", sha);
  if (existsSync(dir)) return dir;
  const unpacking = `${dir}.unpacking-${process.pid}`;
  rmSync(unpacking, { recursive: true, force: true });
  mkdirSync(unpacking, { recursive: true });
  try {
    // lib/ is past execFileSync's default 1 MB of output since issue 30; package.json is read
    // by the front page for its version.
    const archive = execFileSync("git", ["archive", sha, "lib", "package.json"], {
      cwd: ROOT,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync("tar", ["-x", "-C", unpacking], { input: archive });
    renameSync(unpacking, dir);
  } catch (error) {
    rmSync(unpacking, { recursive: true, force: true });
    // Another bench put the same commit there first: its copy is as good.
    if (!existsSync(dir)) throw error;
  }
  return dir;
}

/** `lib/service/main.ts` of `commit`. */
export function unpackBefore(commit: string): string {
  return join(beforeTree(commit), "lib", "service", "main.ts");
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
