/**
 * What is still running of what a test started: the members of a browser's process group
 * (we start each browser as a group leader), zombies excluded.
 */
import { readdirSync, readFileSync } from "node:fs";

export function liveGroupMembers(pgid: number): number[] {
  const alive: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may contain spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const state = fields[0];
      const pgrp = Number(fields[2]);
      if (pgrp === pgid && state !== "Z" && state !== "X") alive.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return alive;
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
