/**
 * A clean copy of this checkout, as a fork's clone would hold it: the files git tracks and the new
 * ones it does not ignore, as they are now (uncommitted edits included), with this checkout's
 * node_modules as an install would make them (hard links where the file system allows, a copy
 * where it does not), the pinned platform CLI's too. For tests that run the platform's build or
 * a fork's commands on a copy.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");

/** Copies the checkout into `folder` (made, or empty); answers `folder`. */
export async function copyOfCheckout(folder: string): Promise<string> {
  const { stdout } = await run("git", ["ls-files", "-z", "-co", "--exclude-standard"], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of stdout.split("\0").filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(folder, file)), { recursive: true });
    cpSync(join(ROOT, file), join(folder, file));
  }
  // The project's packages, and the pinned platform CLI's when it is installed.
  for (const modules of ["node_modules", "test/deploy/vercel/node_modules"]) {
    if (!existsSync(join(ROOT, modules))) continue;
    await run("cp", ["-al", join(ROOT, modules), join(folder, modules)]).catch(() =>
      run("cp", ["-a", join(ROOT, modules), join(folder, modules)]),
    );
  }
  return folder;
}
