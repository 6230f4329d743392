/**
 * How much memory this instance can still take, as the kernel sees it: the host's MemAvailable
 * (free memory plus caches it can drop), within the cgroup's limit when the service runs in a
 * container. The warm pool stands down while it is short (lib/service/warmBrowsers.ts): a blank
 * browser waiting for a `/start` holds 60–100 MB that a live session may need.
 */
import { readFileSync } from "node:fs";
import { freemem, totalmem } from "node:os";

const MiB = 1024 * 1024;
/** Short: under this much, or under a tenth of the machine's memory, whichever is more. */
const SHORT_BELOW_BYTES = 512 * MiB;

/** Bytes the service's processes may still take. */
export function availableMemoryBytes(): number {
  const host = meminfoAvailable() ?? freemem();
  const room = cgroupRoom();
  return room === undefined ? host : Math.min(host, room);
}

/** Whether memory is short: what is available is under 512 MiB or a tenth of the total. */
export function memoryIsShort(
  available = availableMemoryBytes(),
  total = cgroupLimit() ?? totalmem(),
): boolean {
  return available < Math.max(SHORT_BELOW_BYTES, total / 10);
}

function meminfoAvailable(): number | undefined {
  try {
    const kb = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** The cgroup (v2) limit of this process's group; undefined when there is none. */
function cgroupLimit(): number | undefined {
  const max = readCgroup("memory.max");
  return max === undefined || max === "max" ? undefined : Number(max);
}

/** The limit less what the group uses now; undefined without a limit. */
function cgroupRoom(): number | undefined {
  const limit = cgroupLimit();
  const used = Number(readCgroup("memory.current"));
  if (limit === undefined || !Number.isFinite(used)) return undefined;
  return Math.max(0, limit - used);
}

function readCgroup(file: string): string | undefined {
  try {
    return readFileSync(`/sys/fs/cgroup/${file}`, "utf8").trim();
  } catch {
    return undefined;
  }
}
