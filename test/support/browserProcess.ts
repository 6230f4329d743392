/**
 * A Chromium started by the test itself (not by the client), for the attach tests: its own
 * process group, a temporary profile, and its DevTools WebSocket URL.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromiumPack } from "../../lib/browser/chromiumPack.js";
import { terminateGroup } from "../../lib/browser/processGroup.js";
import { waitUntilGone } from "./processes.js";

export interface OwnBrowser {
  pid: number;
  wsEndpoint: string;
  port: number;
  stop(): Promise<void>;
}

export async function startOwnBrowser(): Promise<OwnBrowser> {
  const { executablePath } = await chromiumPack();
  const profile = mkdtempSync(join(tmpdir(), "wayfarer-test-own-"));
  const child = spawn(
    executablePath,
    [
      "--headless",
      "--no-sandbox",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "about:blank",
    ],
    { detached: true, stdio: ["ignore", "ignore", "pipe"] },
  );
  const wsEndpoint = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once("exit", () => reject(new Error(`test browser exited:\n${text}`)));
  });
  child.stderr!.resume();
  const pid = child.pid!;
  return {
    pid,
    wsEndpoint,
    port: Number(new URL(wsEndpoint).port),
    async stop() {
      terminateGroup(pid);
      await waitUntilGone(pid);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
