/**
 * The watchdog: one timer for the whole service measures every live session's browser memory
 * and folder, and hands a session past a limit to whoever ends it. The kernel would bound a
 * browser better (a cgroup v2 memory controller delegated to the service); where there is none
 * (cgroup v1, macOS), this is what keeps one session from taking the machine.
 */
import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/** What the watchdog needs of a session. */
export interface Watched {
  readonly id: string;
  readonly project: string;
  /** The browser's PID, which leads its own process group (every process it starts is in it). */
  readonly browserPid: number | undefined;
  /** The browser's launch folder: profile, tmp, downloads; none: its disk is not watched. */
  readonly browserFolder?: string | undefined;
}

export interface WatchLimits {
  /** Private memory of a browser's processes, MB; undefined: not watched. */
  memoryMb: number | undefined;
  /** Bytes on disk under a session's browser folder, MB; undefined: not watched. */
  diskMb: number | undefined;
  intervalMs: number;
}

/** A session past a limit: what, how much, and the variable that sets it. */
export interface Excess {
  what: "memory" | "disk";
  bytes: number;
  limitMb: number;
  variable: "WAYFARER_BROWSER_MAX_MEMORY_MB" | "WAYFARER_SESSION_MAX_DISK_MB";
}

const MB = 2 ** 20;

/** `its browser used 2.3 GB of memory, past WAYFARER_BROWSER_MAX_MEMORY_MB (2048)`. */
export function excessText(excess: Excess): string {
  const used =
    excess.what === "memory" ? "its browser used %s of memory" : "its browser's files took %s";
  return `${used.replace("%s", sizeText(excess.bytes))}, past ${excess.variable} (${excess.limitMb})`;
}

function sizeText(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${Math.round(bytes / MB)} MB`;
}

/**
 * Folders are walked on every fifth pass (every 10 s at the default interval): a walk costs an
 * lstat per file, and a profile that has browsed for a while holds thousands, while /proc is one
 * small read per process on the host. Filling 1 GB takes a download longer than that anyway.
 */
const DISK_EVERY = 5;

export class SessionWatch {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private passes = 0;

  constructor(
    private readonly limits: WatchLimits,
    private readonly sessions: () => readonly Watched[],
    /** Ends the session; told once per session (it is no longer listed once ended). */
    private readonly over: (session: Watched, excess: Excess) => void,
    /** Told of each memory reading, by process group leader (the service's metrics). */
    private readonly tally?: { browserMemory(byLeader: ReadonlyMap<number, number>): void },
  ) {}

  start(): void {
    if (this.limits.memoryMb === undefined && this.limits.diskMb === undefined) return;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The next tick is scheduled when this one is done: ticks never overlap. */
  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      await this.tick();
      this.schedule();
    }, this.limits.intervalMs);
    this.timer.unref();
  }

  /** Measures every session once; each one past a limit is handed to `over`. Never throws. */
  async tick(): Promise<void> {
    try {
      await this.measure();
    } catch {
      // What failed (/proc unreadable, a listing that threw) is tried again next time.
    }
  }

  private async measure(): Promise<void> {
    const sessions = this.sessions();
    if (sessions.length === 0) return;
    const { memoryMb } = this.limits;
    const diskMb = this.passes++ % DISK_EVERY === 0 ? this.limits.diskMb : undefined;
    const memory =
      memoryMb === undefined
        ? new Map<number, number>()
        : await groupMemory(new Set(sessions.flatMap((s) => s.browserPid ?? []))).catch(
            () => new Map<number, number>(),
          );
    if (memoryMb !== undefined) this.tally?.browserMemory(memory);
    for (const session of sessions) {
      const used = session.browserPid === undefined ? undefined : memory.get(session.browserPid);
      if (memoryMb !== undefined && used !== undefined && used > memoryMb * MB) {
        this.tell(session, {
          what: "memory",
          bytes: used,
          limitMb: memoryMb,
          variable: "WAYFARER_BROWSER_MAX_MEMORY_MB",
        });
        continue;
      }
      if (diskMb === undefined || !session.browserFolder) continue;
      const taken = await folderBytes(session.browserFolder, diskMb * MB).catch(() => 0);
      if (taken > diskMb * MB) {
        this.tell(session, {
          what: "disk",
          bytes: taken,
          limitMb: diskMb,
          variable: "WAYFARER_SESSION_MAX_DISK_MB",
        });
      }
    }
  }

  private tell(session: Watched, excess: Excess): void {
    try {
      this.over(session, excess);
    } catch {
      // The next session is still looked at; this one is found again on the next tick.
    }
  }
}

/**
 * The private memory of each process group whose leader is in `leaders`, in bytes: one pass over
 * /proc for every session at once.
 *
 * Private is RssAnon + RssShmem: Chromium runs a dozen processes mapping the same binary and
 * libraries, and plain RSS counts those shared pages once per process (a blank browser reads
 * ~390 MB of RSS against ~70 MB private). RssShmem is kept: Chromium's shared-memory buffers
 * between its processes are memory the session made, counted once in each process that maps it
 * (a bound from above, never a miss). Not Linux: nothing.
 *
 * Read synchronously: /proc's files are made by the kernel as they are read and never wait on a
 * disk, and the promise form took eight times the CPU (2.4 ms a pass over 130 processes against
 * 20). The loop yields every few hundred processes, so a crowded host does not hold the loop.
 */
export async function groupMemory(
  leaders: ReadonlySet<number>,
  proc = "/proc",
): Promise<Map<number, number>> {
  const totals = new Map<number, number>();
  if (leaders.size === 0 || process.platform !== "linux") return totals;
  const pids = readdirSync(proc).filter((name) => /^\d+$/.test(name));
  for (const [i, pid] of pids.entries()) {
    if (i > 0 && i % 256 === 0) await new Promise((resolve) => setImmediate(resolve));
    // A process may exit between the listing and these reads: it holds nothing then.
    const group = groupOf(readOr(join(proc, pid, "stat")));
    if (group === undefined || !leaders.has(group)) continue;
    const bytes = privateBytes(readOr(join(proc, pid, "status")));
    totals.set(group, (totals.get(group) ?? 0) + bytes);
  }
  return totals;
}

function readOr(path: string): string {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return "";
  }
}

/** The process group in a /proc/<pid>/stat line; its name (in parentheses) may hold anything. */
function groupOf(stat: string): number | undefined {
  // After the name: state, ppid, pgrp.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const group = Number(fields[2]);
  return Number.isInteger(group) && group > 0 ? group : undefined;
}

function privateBytes(status: string): number {
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return (kb("RssAnon") + kb("RssShmem")) * 1024;
}

/**
 * The space the files under `root` take on disk (allocated blocks: a sparse file counts what it
 * holds, not what it claims), symbolic links never followed. Stops counting once past `enough`.
 */
export async function folderBytes(root: string, enough = Infinity): Promise<number> {
  let total = 0;
  const folders = [root];
  while (folders.length > 0 && total <= enough) {
    const folder = folders.pop()!;
    // A folder removed under us (the session ended, the browser cleaned up) holds nothing.
    const entries: Dirent[] = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (let i = 0; i < entries.length; i += 64) {
      const sizes = await Promise.all(
        entries.slice(i, i + 64).map(async (entry) => {
          const path = join(folder, entry.name);
          if (entry.isDirectory()) folders.push(path);
          const stats = await lstat(path).catch(() => undefined);
          return stats ? stats.blocks * 512 : 0;
        }),
      );
      for (const size of sizes) total += size;
    }
  }
  return total;
}
