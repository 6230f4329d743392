/**
 * Tests that need a system package (redis-server, nginx, curl, jq) are skipped where it is not
 * installed, saying which and how to install it, rather than failing on a developer's machine;
 * `.ci/run` installs them all, so CI runs every one.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { describe } from "vitest";

/** Where Debian puts programs, beside PATH (nginx is in /usr/sbin, often not in a user's PATH). */
const ALSO = ["/usr/sbin", "/sbin", "/usr/local/sbin"];

/** The commands of `commands` that no folder of PATH (or sbin) holds as an executable. */
export function missingCommands(...commands: string[]): string[] {
  const folders = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), ...ALSO];
  return commands.filter(
    (command) =>
      !folders.some((folder) => {
        try {
          accessSync(join(folder, command), constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }),
  );
}

/** The Debian package of each command. */
const PACKAGES: Record<string, string> = { "redis-server": "redis-server" };

/**
 * `describe`, or, when a command is missing, `describe.skip` whose name says which and how to
 * install it (the file's hooks then do not run either: all its tests are skipped).
 */
export function describeNeeding(...commands: string[]): typeof describe {
  const missing = missingCommands(...commands);
  if (missing.length === 0) return describe;
  const install = missing.map((c) => PACKAGES[c] ?? c).join(" ");
  const why = `skipped: ${missing.join(", ")} not installed (apt-get install ${install}; .ci/run does)`;
  console.warn(why);
  return ((name: string, fn?: () => void) =>
    describe.skip(`${name} (${why})`, fn)) as typeof describe;
}
