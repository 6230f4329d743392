/**
 * CPU time of a server's process and of everything under it (its Chromium processes, by the
 * `--type=` of their command line), from /proc/<pid>/stat (utime + stime, every thread of the
 * process). Read at marks the caller sets and polled in between, so a process that ends
 * mid-window (a renderer swapped out by a navigation) still counts what it spent up to the
 * last poll; one born mid-window counts from zero.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { commandLineIfLive, liveDescendants } from "../../test/support/processes.js";

export const KINDS = [
  "service",
  "browser",
  "renderer",
  "gpu",
  "network",
  "utility",
  "zygote",
  "other",
] as const;
export type Kind = (typeof KINDS)[number];
export type CpuByKind = Record<Kind, number>;

const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim() || 100);

export const zeroCpu = (): CpuByKind => Object.fromEntries(KINDS.map((k) => [k, 0])) as CpuByKind;

/** `a - b`, kind by kind. */
export const minusCpu = (a: CpuByKind, b: CpuByKind): CpuByKind =>
  Object.fromEntries(KINDS.map((k) => [k, a[k] - b[k]])) as CpuByKind;

/**
 * What a process of the tree is: the server itself, one of Chromium's by its --type (one
 * without is the browser process), or anything else (the reference's Node supervisor, a shell).
 */
export function kindOf(pid: number, root: number): Kind {
  if (pid === root) return "service";
  // Chromium's children rewrite their title: the arguments may come as one space-separated string.
  const argv = commandLineIfLive(pid).join(" ");
  if (!/chrom|headless_shell/i.test(argv.split(" ")[0] ?? "")) return "other";
  const type = /(?:^| )--type=(\S+)/.exec(argv)?.[1];
  if (type === undefined) return "browser";
  if (type === "renderer") return "renderer";
  if (type === "gpu-process") return "gpu";
  if (type === "zygote") return "zygote";
  return argv.includes("NetworkService") ? "network" : "utility";
}

/** utime + stime of `pid`, ms; undefined once it is gone. */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of stat; here counted from field 3 (the state).
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

export class CpuMeter {
  private readonly seen = new Map<number, { kind: Kind; from: number; last: number }>();
  private readonly poller: NodeJS.Timeout;

  /** Starts counting now for `root` and its descendants. */
  constructor(
    private readonly root: number,
    pollMs = 150,
  ) {
    this.poll(true);
    this.poller = setInterval(() => this.poll(false), pollMs);
  }

  private poll(first: boolean): void {
    for (const pid of [this.root, ...liveDescendants(this.root)]) {
      const ms = cpuMs(pid);
      if (ms === undefined) continue;
      const known = this.seen.get(pid);
      if (known) known.last = ms;
      else this.seen.set(pid, { kind: kindOf(pid, this.root), from: first ? ms : 0, last: ms });
    }
  }

  /** CPU ms spent since the meter started, by kind. */
  mark(): CpuByKind {
    this.poll(false);
    const total = zeroCpu();
    for (const p of this.seen.values()) total[p.kind] += p.last - p.from;
    return total;
  }

  stop(): void {
    clearInterval(this.poller);
  }
}
