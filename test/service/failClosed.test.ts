/**
 * Fail closed: a service that would run strangers' browsers without Chromium's sandbox does not
 * start unless its operator says yes (WAYFARER_ALLOW_UNSANDBOXED_BROWSERS=1). As root, that is
 * WAYFARER_BROWSER_USERS=off, or a private temp dir (mode 0700, as `mktemp -d` makes it) that
 * another user's browser could not enter, which once fell back to root quietly. The refusal
 * says why and what would give the sandbox; with the yes, the start-up line and /readyz say what
 * runs without it. `npm run service` as a process, its exit and its output its own.
 */
import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAcrossTests } from "../support/keptProcesses.js";
import { startService } from "../support/serviceProcess.js";

const ENTRY = join(import.meta.dirname, "..", "..", "bin", "wayfarer-service");
const KEY = "key-fail-closed-0123456789";
const asRoot = process.getuid?.() === 0;
let dataDir = "";
let privateTmp = "";

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wayfarer-closed-"));
  privateTmp = await mkdtemp(join(tmpdir(), "wayfarer-private-tmp-"));
  await chmod(privateTmp, 0o700);
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(privateTmp, { recursive: true, force: true });
});

/** Runs the service until it exits (or 20 s): its code and everything it printed. */
function runToExit(env: Record<string, string>) {
  const child = spawn(process.execPath, [ENTRY], {
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: "0",
      WAYFARER_DATA_DIR: dataDir,
      WAYFARER_API_KEYS: `p:${KEY}`,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  child.stdout.on("data", (d: Buffer) => {
    printed += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    printed += d.toString();
  });
  return new Promise<{ code: number | null; printed: string }>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, printed });
    });
  });
}

describe.skipIf(!asRoot)(
  "a service that would run browsers as root without Chromium's sandbox",
  () => {
    it("does not start with WAYFARER_BROWSER_USERS=off, and says why and what would do", async () => {
      const run = await runToExit({ WAYFARER_BROWSER_USERS: "off" });
      expect(run.code).toBe(1);
      expect(run.printed).not.toContain("listening on");
      expect(run.printed).toContain("WAYFARER_ALLOW_UNSANDBOXED_BROWSERS");
      expect(run.printed).toMatch(
        /every session's browser would run as root \(WAYFARER_BROWSER_USERS=off\)/,
      );
      expect(run.printed).toContain("give each browser a user of its own");
    });

    it("does not start in a private temp dir (0700) other users' browsers could not enter", async () => {
      const run = await runToExit({ TMPDIR: privateTmp });
      expect(run.code).toBe(1);
      expect(run.printed).not.toContain("listening on");
      expect(run.printed).toMatch(
        /would run as root \(.*\): a page that breaks out of its renderer/,
      );
      expect(run.printed).toContain("WAYFARER_ALLOW_UNSANDBOXED_BROWSERS=1");
    });

    it("starts with the operator's yes, and its start-up line and /readyz say the sandbox is off and who allowed it", async () => {
      const service = await startService({
        WAYFARER_DATA_DIR: dataDir,
        WAYFARER_API_KEYS: `p:${KEY}`,
        WAYFARER_BROWSER_USERS: "off",
        WAYFARER_ALLOW_UNSANDBOXED_BROWSERS: "1",
      });
      keepAcrossTests(service.child.pid);
      try {
        expect(service.printed()).toContain(
          "isolation: running browsers without Chromium's sandbox because WAYFARER_ALLOW_UNSANDBOXED_BROWSERS=1",
        );
        const ready = await (await fetch(`${service.url}/readyz`)).json();
        expect(ready.protections).toEqual({
          cdp: "pipe",
          browserUsers: "root",
          sandbox: {
            on: false,
            why: "Chromium refuses its sandbox to root",
            allowedBy: "WAYFARER_ALLOW_UNSANDBOXED_BROWSERS",
          },
          memory: { watchdogMb: 2048 },
        });
      } finally {
        service.child.kill("SIGTERM");
        await service.exited;
      }
    });

    it("by default, /readyz names the protections this host gives: a user per session, the sandbox on", async () => {
      const service = await startService({
        WAYFARER_DATA_DIR: dataDir,
        WAYFARER_API_KEYS: `p:${KEY}`,
      });
      keepAcrossTests(service.child.pid);
      try {
        const ready = await (await fetch(`${service.url}/readyz`)).json();
        expect(ready.protections.cdp).toBe("pipe");
        expect(ready.protections.browserUsers).toBe("per session");
        // This host gives the sandbox (else this service would not have started).
        expect(ready.protections.sandbox.on).toBe(true);
      } finally {
        service.child.kill("SIGTERM");
        await service.exited;
      }
    });
  },
);
