/**
 * What a launched browser's processes can read of the environment they were started with.
 *
 * The browser process's own environment is in /proc/<pid>/environ. Its helpers (zygote,
 * renderers, GPU, utilities) rename themselves with setproctitle, which writes their title over
 * the area /proc/<pid>/environ shows and moves the environment's strings to the heap: for them
 * we look in their writable memory, where the environment they inherited now lives.
 * A canary variable that the allowlist lets through shows that the look would find an
 * inherited value there.
 */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { liveGroupMembers } from "./processes.js";

/** Secret-looking variables a service or a function holds, set by the tests. */
export const SECRETS: Record<string, string> = {
  OPENAI_API_KEY: "sk-browser-env-test-openai-5f1c2a9e",
  WAYFARER_API_KEYS: "alpha:key-browser-env-test-4d7e0b13",
  REDIS_URL: "redis://:pw-browser-env-test-8a2c@redis.internal:6379",
  SOMETHING_SECRET: `something-${Math.random().toString(36).slice(2)}-secret`,
};

/** Allowed by the allowlist (an LC_ category), so it must reach every process. */
export const CANARY = { name: "LC_WAYFARER_CANARY", value: "canary-browser-env-test-61b9" };

/** The browser process's environment, name to value. */
export function environOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** Every live process of the browser whose group `pid` leads, the browser first. */
export function browserProcesses(pid: number): number[] {
  return [pid, ...liveGroupMembers(pid).filter((p) => p !== pid)];
}

/** Larger mappings are reserved heaps of the page's scripts, not where a process keeps strings. */
const MAX_MAPPING = 512 * 1024 * 1024;

/** Which of `needles` appear in the writable memory of process `pid`; undefined if it ended. */
export function foundInMemory(pid: number, needles: string[]): string[] | undefined {
  const found = new Set<string>();
  let fd: number;
  let maps: string;
  try {
    fd = openSync(`/proc/${pid}/mem`, "r");
    maps = readFileSync(`/proc/${pid}/maps`, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined; // it ended
    throw error;
  }
  try {
    for (const line of maps.split("\n")) {
      const [range, perms, , , , path] = line.split(/\s+/);
      // Writable memory of its own: stack, heap and anonymous mappings (Chromium's allocator).
      if (!range || !perms?.startsWith("rw") || (path && path !== "[stack]" && path !== "[heap]"))
        continue;
      const [start, end] = range.split("-").map((h) => Number.parseInt(h, 16)) as [number, number];
      if (end - start > MAX_MAPPING) continue;
      const buffer = Buffer.alloc(end - start);
      try {
        readSync(fd, buffer, 0, buffer.length, start);
      } catch {
        continue; // unmapped while we read
      }
      for (const needle of needles) if (buffer.includes(needle)) found.add(needle);
    }
  } finally {
    closeSync(fd);
  }
  return [...found];
}

/**
 * What each process of the browser shows: the secrets' values found (there must be none), and
 * whether the canary's value and PATH's were found (they must be).
 */
export function browserLeaks(pid: number) {
  const secrets = Object.values(SECRETS);
  return browserProcesses(pid).flatMap((p) => {
    const found = foundInMemory(p, [...secrets, CANARY.value, `PATH=${process.env.PATH}`]);
    if (!found) return [];
    return {
      pid: p,
      secrets: found.filter((f) => secrets.includes(f)),
      canary: found.includes(CANARY.value),
      path: found.includes(`PATH=${process.env.PATH}`),
    };
  });
}
