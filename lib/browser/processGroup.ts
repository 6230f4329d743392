/**
 * The browsers this process started. Each runs in its own process group, so one signal ends the
 * browser and every helper process it spawned. If Node exits (or is told to) while a browser we
 * own is still running, we end it and remove its temporary profile: nothing is left behind.
 * A process killed outright runs no hook: the lifeline (lifeline.ts), when armed, does it then.
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { lifeline } from "./lifeline.js";

interface Owned {
  /** The launch's own folder (temporary profile, Chromium's temp files). */
  sessionDir: string;
}

const owned = new Map<number, Owned>();
let hooked = false;

export const ownedProcesses = {
  add(pid: number, sessionDir: string): void {
    owned.set(pid, { sessionDir });
    lifeline.add(pid, sessionDir);
    hookExit();
  },
  delete(pid: number): void {
    owned.delete(pid);
    lifeline.delete(pid);
  },
};

/** SIGKILL to the whole group; a group that is already gone is fine. */
export function terminateGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: nothing left in the group.
  }
}

export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once("exit", onExit);
  });
}

function cleanUpAll(): void {
  for (const [pid, { sessionDir }] of owned) {
    terminateGroup(pid);
    try {
      rmSync(sessionDir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Best effort on the way out.
    }
  }
  owned.clear();
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once("exit", cleanUpAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      cleanUpAll();
      // When we are the only listener, Node would have exited: step aside and re-raise so it
      // does. When the application handles the signal too, it decides, and we stay installed.
      if (process.listenerCount(signal) === 1) {
        process.off(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}
