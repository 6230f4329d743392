/**
 * A clean copy of this checkout, as a fork's clone would hold it: the files git tracks and the new
 * ones it does not ignore, as they are now (uncommitted edits included), with this checkout's
 * node_modules as an install would make them (hard links where the file system allows, a copy
 * where it does not), the pinned platform CLI's too. For tests that run the platform's build or
 * a fork's commands on a copy.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");

/**
 * Copies the checkout into `folder` (made, or empty), as a repository of its own with one commit
 * (a fork is a clone); answers `folder`.
 */
export async function copyOfCheckout(folder: string): Promise<string> {
  for (const file of await checkoutFiles()) {
    mkdirSync(dirname(join(folder, file)), { recursive: true });
    cpSync(join(ROOT, file), join(folder, file));
  }
  const git = (...args: string[]) => run("git", args, { cwd: folder });
  await git("init", "-q");
  await git("add", "-A");
  await git("-c", "user.name=fork", "-c", "user.email=fork@localhost", "commit", "-qm", "fork");
  // The project's packages, and the pinned platform CLI's when it is installed.
  for (const modules of ["node_modules", "test/deploy/vercel/node_modules"]) {
    if (!existsSync(join(ROOT, modules))) continue;
    await run("cp", ["-al", join(ROOT, modules), join(folder, modules)]).catch(() =>
      run("cp", ["-a", join(ROOT, modules), join(folder, modules)]),
    );
  }
  return folder;
}

/** The checkout's files: git's (tracked, and new ones not ignored); without git, all but builds. */
async function checkoutFiles(): Promise<string[]> {
  const listed = await run("git", ["ls-files", "-z", "-co", "--exclude-standard"], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  }).catch(() => undefined);
  if (listed) {
    // A file deleted but not yet committed is listed and absent.
    return listed.stdout.split("\0").filter((f) => f && existsSync(join(ROOT, f)));
  }
  const skipped = new Set(["node_modules", ".git", ".vercel", "dist"]);
  const entries = readdirSync(ROOT, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .filter((f) => !f.split(sep).some((part) => skipped.has(part)));
}
