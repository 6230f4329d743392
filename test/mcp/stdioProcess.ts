/**
 * bin/wayfarer-mcp as a process of its own, for the tests that run it as a client config would:
 * the pack's Chromium and its libraries in its environment, and a run to its exit.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll } from "vitest";
import { chromiumPack } from "../../lib/browser/chromiumPack.js";

export const ENTRY = join(import.meta.dirname, "..", "..", "bin", "wayfarer-mcp");

/** CHROME_PATH and the pack's libraries, read before the file's tests: what a config would set. */
export function useBrowserEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  beforeAll(async () => {
    const pack = await chromiumPack();
    Object.assign(env, { CHROME_PATH: pack.executablePath, ...pack.env });
  });
  return env;
}

/**
 * Runs the entry with `env` and `args` to its exit (one that starts is killed after 30 s; its
 * stdin stays open, so a server that did start waits on it): its code and its output.
 */
export async function exitOf(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [ENTRY, ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
