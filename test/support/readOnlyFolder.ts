/**
 * A folder made read-only for real, as a serverless host's bundle is: as root, a read-only bind
 * mount of the folder over itself (modes do not stop root); otherwise its mode. Answers the undo,
 * or undefined where neither can be done (root without the right to mount).
 */
import { spawnSync } from "node:child_process";
import { chmodSync } from "node:fs";

export function makeReadOnly(dir: string): (() => void) | undefined {
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o555);
    return () => chmodSync(dir, 0o755);
  }
  const mount = (...args: string[]) => spawnSync("mount", args, { stdio: "ignore" }).status === 0;
  if (!mount("--bind", dir, dir)) return undefined;
  if (mount("-o", "remount,bind,ro", dir)) return () => spawnSync("umount", [dir]);
  spawnSync("umount", [dir]);
  return undefined;
}
