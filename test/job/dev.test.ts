/**
 * `npm run dev` as a reader runs it: it serves /api/run on PORT, and SIGTERM to npm (what a
 * terminal's process manager or a test runner sends) ends it, its port free again, nothing left.
 */
import { spawn } from "node:child_process";
import { createConnection } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../support/ports.js";
import { liveTree, stillRunning } from "../support/processes.js";
import { within } from "../support/waiting.js";

const ROOT = join(import.meta.dirname, "..", "..");

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("npm run dev", () => {
  it("serves /api/run on PORT and stops on SIGTERM, its port freed and no process left", async () => {
    const port = await freePort();
    const npm = spawn("npm", ["run", "dev"], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), OPENAI_API_KEY: "sk-dev-test-0123456789" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let printed = "";
    npm.stdout.on("data", (d: Buffer) => {
      printed += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => npm.once("exit", resolve));
    await within(
      30_000,
      "npm run dev to listen",
      new Promise<void>((resolve) => {
        const look = () => printed.includes("/api/run on") && resolve();
        npm.stdout.on("data", look);
      }),
    );
    expect(printed).toContain(`/api/run on http://127.0.0.1:${port}/api/run`);
    expect(await listening(port)).toBe(true);
    const started = liveTree(npm.pid!);
    // npm, its shell's exec of tsx, and node under tsx.
    expect(started.length).toBeGreaterThanOrEqual(2);
    npm.kill("SIGTERM");
    await within(10_000, "npm run dev to exit after SIGTERM", exited);
    expect(await stillRunning(started, 5_000)).toEqual([]);
    expect(await listening(port)).toBe(false);
  });
});
