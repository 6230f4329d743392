/**
 * Once per test run: unpack the npm-shipped Chromium (so no test pays for it) and, when there is
 * no display but Xvfb is installed, start one for the headful tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chromiumPack, packAvailable } from "../../lib/browser/chromiumPack.js";

let xvfb: ChildProcess | undefined;

export async function setup(): Promise<void> {
  if (packAvailable()) await chromiumPack();
  // Services the tests start in processes of their own launch one browser per session and no
  // more (their checks count them); the warm pool's own tests turn it on.
  process.env.WAYFARER_WARM_BROWSERS ??= "0";
  if (!process.env.DISPLAY && existsSync("/usr/bin/Xvfb")) {
    process.env.DISPLAY = await startXvfb();
  }
}

export async function teardown(): Promise<void> {
  xvfb?.kill("SIGKILL");
}

function startXvfb(): Promise<string> {
  return new Promise((resolve, reject) => {
    // -displayfd 3: Xvfb picks a free display number and writes it to fd 3 once it is ready.
    const child = spawn(
      "/usr/bin/Xvfb",
      ["-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
      {
        stdio: ["ignore", "ignore", "ignore", "pipe"],
      },
    );
    xvfb = child;
    const timer = setTimeout(() => reject(new Error("Xvfb did not start in 10 s")), 10_000);
    child.stdio[3]?.on("data", (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(`:${chunk.toString().trim()}`);
    });
    child.once("exit", (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
}
