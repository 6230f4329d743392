/**
 * What is still running of what a test started: the members of a browser's process group
 * (we start each browser as a group leader), zombies excluded.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface ProcessStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

function liveProcesses(): ProcessStat[] {
  const out: ProcessStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may contain spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const state = fields[0] ?? "";
      if (state === "Z" || state === "X") continue;
      out.push({ pid: Number(entry), state, ppid: Number(fields[1]), pgrp: Number(fields[2]) });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

export function liveGroupMembers(pgid: number): number[] {
  return liveProcesses()
    .filter((p) => p.pgrp === pgid)
    .map((p) => p.pid);
}

/** Live children of `pid`, and everything in the process groups they lead. */
export function liveDescendants(pid: number): number[] {
  const all = liveProcesses();
  const children = all.filter((p) => p.ppid === pid);
  const groups = new Set(children.map((c) => c.pid));
  return [
    ...new Set([
      ...children.map((c) => c.pid),
      ...all.filter((p) => groups.has(p.pgrp)).map((p) => p.pid),
    ]),
  ];
}

/** Every live process under `pid`, however deep (children, their children, …). */
export function liveTree(pid: number): number[] {
  const all = liveProcesses();
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const p of all) {
      if (p.ppid === parent) {
        found.push(p.pid);
        walk(p.pid);
      }
    }
  };
  walk(pid);
  return found;
}

/** The command line of a live process; [] for one that has ended. */
export function commandLineIfLive(pid: number): string[] {
  try {
    return commandLine(pid);
  } catch {
    return [];
  }
}

export function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
}

export async function waitUntilGone(pgid: number, timeoutMs = 5_000): Promise<number[]> {
  const end = Date.now() + timeoutMs;
  let alive = liveGroupMembers(pgid);
  while (alive.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    alive = liveGroupMembers(pgid);
  }
  return alive;
}

/** Those of `pids` (in any process group) still running after up to `timeoutMs`. */
export async function stillRunning(pids: number[], timeoutMs = 2_000): Promise<number[]> {
  const alive = () =>
    pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
  const end = Date.now() + timeoutMs;
  while (alive().length && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return alive();
}

/**
 * Starts test/support/openAndWait.ts in a child Node process (a client that opens a page and
 * waits): its browser's pid and profile once it is up, and the child to end as a test pleases.
 */
export async function openInChild(env: NodeJS.ProcessEnv = process.env) {
  const script = join(import.meta.dirname, "openAndWait.ts");
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    stdio: ["pipe", "pipe", "inherit"],
    env,
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const info = await new Promise<{ pid: number; profile: string }>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(JSON.parse(out));
    });
    child.once("exit", (code) => reject(new Error(`child exited early with ${code}`)));
  });
  return { child, info, exited };
}

/**
 * Those of `pids` still running (zombies excluded: a process whose parent was killed waits to
 * be reaped by whoever adopted it, which may be never in a container) after up to `timeoutMs`.
 */
export async function stillLive(pids: number[], timeoutMs = 2_000): Promise<number[]> {
  const alive = () => {
    const live = new Set(liveProcesses().map((p) => p.pid));
    return pids.filter((pid) => live.has(pid));
  };
  const end = Date.now() + timeoutMs;
  while (alive().length && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return alive();
}

/**
 * The egress guard's worker (lib/browser/egressHost.ts): a node process a service running as
 * root starts beside its browsers. Counted apart from them.
 */
export function isEgressWorker(pid: number): boolean {
  return /egressWorker\.[jt]s|wayfarer-egress\.js/.test(commandLineIfLive(pid).join(" "));
}
