/**
 * A real redis-server on 127.0.0.1 and a free port, nothing kept on disk, for the tests of
 * shared mode. It can be stopped and started again on the same port (a Redis restart: it comes
 * back empty, as one without persistence does).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { keepAcrossTests } from "./keptProcesses.js";
import { freePort } from "./ports.js";
import { within } from "./waiting.js";

export interface RedisServer {
  url: string;
  port: number;
  /** Kills it (SIGKILL: no goodbye to its clients). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let printed = "";
  await within(
    10_000,
    `redis-server ready on port ${port}`,
    new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (d: Buffer) => {
        printed += d.toString();
        if (printed.includes("Ready to accept connections")) resolve();
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`redis-server exited ${code}: ${printed}`)));
    }),
  );
  child.stdout?.resume();
  keepAcrossTests(child.pid);
  return child;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child = await launch(port);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async restart() {
      await stop();
      child = await launch(port);
    },
  };
}
