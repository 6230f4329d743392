/**
 * A lifeline for the browsers of a process that may be killed outright (the service, under a
 * supervisor's SIGKILL or the kernel's OOM killer): no exit hook runs then, and each browser,
 * in its own process group, would outlive it. A small `sh` of its own process group reads, on
 * its stdin, which groups (and launch folders) are ours; the kernel closes that pipe however we
 * die, and on end of input the shell kills every group still listed and removes its folder.
 * POSIX only; one shell per process, a few hundred kilobytes.
 */
import { type ChildProcess, spawn } from "node:child_process";

const WATCH = `
entries=""
nl='
'
while IFS= read -r line; do
  op=\${line%% *}; rest=\${line#* }
  case "$op" in
    add) entries="$entries$rest$nl" ;;
    del) entries=$(printf '%s' "$entries" | grep -v "^$rest "); entries="\${entries:+$entries$nl}" ;;
  esac
done
[ -n "$entries" ] || exit 0
printf '%s' "$entries" | while IFS= read -r entry; do kill -KILL -"\${entry%% *}" 2>/dev/null; done
sleep 1
printf '%s' "$entries" | while IFS= read -r entry; do
  dir=\${entry#* }
  case "$dir" in /*) rm -rf -- "$dir" ;; esac
done
`;

let shell: ChildProcess | undefined;

/** Starts the lifeline once; browsers launched from now on are listed on it. */
export function armLifeline(): void {
  if (shell || process.platform === "win32") return;
  shell = spawn("sh", ["-c", WATCH], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  shell.on("error", () => {
    shell = undefined;
  });
  // Its stdin must not keep us alive, nor its exit be waited for.
  shell.unref();
  (shell.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  shell.stdin?.on("error", () => {});
}

export const lifeline = {
  /** The browser of process group `pid`, with the folder its launch wrote to. */
  add(pid: number, dir: string): void {
    if (!/[\n]/.test(dir)) shell?.stdin?.write(`add ${pid} ${dir}\n`);
  },
  /** That browser is ended (or handed over to outlive us, as keepAlive does). */
  delete(pid: number): void {
    shell?.stdin?.write(`del ${pid}\n`);
  },
};
