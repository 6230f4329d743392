/**
 * The service as `npm run service` runs it, in a child process (bin/wayfarer-service: the build
 * in dist/, which the test run's global setup makes current (buildService.ts), or lib/ under
 * tsx should a source change after it), for tests and benchmarks that need it apart from their
 * own process: its own event loop, its own memory, and a real SIGTERM. Its model calls leave
 * the process, so they go to the model kit over HTTP (llm/modelHttp.ts) by OPENAI_BASE_URL.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { join } from "node:path";
import type { Readable } from "node:stream";

/** The entry judges the build in dist/ itself, and never runs a stale one. */
const ENTRY = join(import.meta.dirname, "..", "..", "bin", "wayfarer-service");
const STARTUP_MS = 20_000;

export interface ServiceProcess {
  child: ChildProcessByStdio<null, Readable, null>;
  /** `http://127.0.0.1:PORT`, as the service printed it. */
  url: string;
  /** Everything it printed to stdout so far (its generated key, its shutdown line). */
  printed(): string;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * Starts the service on 127.0.0.1 and a free port with `env` over this process's environment;
 * resolves once it says where it listens. One that does not within 20 s is killed.
 */
export async function startService(
  env: Record<string, string>,
  /** Another tree's lib/service/main.ts (a benchmark's "before"), run under tsx. */
  main?: string,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, main ? ["--import", "tsx", main] : [ENTRY], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  let printed = "";
  // Read to the end, whoever waits: a full pipe would stall the service's writes.
  child.stdout.on("data", (d: Buffer) => {
    printed += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no "listening on" in ${STARTUP_MS / 1000} s: ${printed}`));
    }, STARTUP_MS);
    const look = () => {
      const m = printed.match(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off("data", look);
      resolve(m[1]!);
    };
    child.stdout.on("data", look);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code}: ${printed}`));
    });
  });
  return { child, url, printed: () => printed, exited };
}
