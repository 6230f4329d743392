/**
 * The service as `npm run service` runs it, in a process of its own: it says where it listens,
 * makes a key when none is given (shown once, only its hash kept), and on SIGTERM with sessions
 * open ends every browser and exits in time.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { liveDescendants } from "../support/processes.js";

const MAIN = join(import.meta.dirname, "..", "..", "lib", "service", "main.ts");

/** Starts the service; resolves with its URL and what it printed before that. */
async function startService(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  let printed = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on" in 20 s: ${printed}`)),
      20_000,
    );
    child.stdout.on("data", (d: Buffer) => {
      printed += d.toString();
      const m = printed.match(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`the service exited with ${code}: ${printed}`)));
  });
  return { child, url, printed: () => printed, exited };
}

/** Those of `pids` still running after up to 2 s. */
async function stillRunning(pids: number[]): Promise<number[]> {
  const alive = () =>
    pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
  const end = Date.now() + 2_000;
  while (alive().length && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return alive();
}

describe("npm run service", () => {
  it("makes a key once, and on SIGTERM ends every session's browser and exits within 20 s", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-service-"));
    try {
      const service = await startService({ WAYFARER_DATA_DIR: dataDir, WAYFARER_API_KEYS: "" });
      const key = service.printed().match(/: (wf_[\w-]+)\n/)?.[1];
      expect(key).toBeDefined();
      const stored = JSON.parse(await readFile(join(dataDir, "keys.json"), "utf8"));
      expect(Object.keys(stored)).toEqual(["default"]);
      expect(JSON.stringify(stored)).not.toContain(key!);
      const start = () =>
        fetch(`${service.url}/v1/sessions/start`, {
          method: "POST",
          headers: { "x-wf-api-key": key!, "content-type": "application/json" },
          body: "{}",
        }).then((r) => r.json() as Promise<{ success: boolean }>);
      expect((await start()).success).toBe(true);
      expect((await start()).success).toBe(true);
      // The two browsers, each in a process group of its own under the service.
      const browsers = liveDescendants(service.child.pid!).filter(
        (pid) => pid !== service.child.pid,
      );
      expect(browsers.length).toBeGreaterThan(1);
      const stopped = Date.now();
      service.child.kill("SIGTERM");
      expect(await service.exited).toBe(0);
      expect(Date.now() - stopped).toBeLessThan(20_000);
      expect(await stillRunning(browsers)).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
