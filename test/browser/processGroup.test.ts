import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { waitUntilGone } from "../support/processes.js";

const script = join(import.meta.dirname, "..", "support", "openAndWait.ts");

async function openInChild() {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const info = await new Promise<{ pid: number; profile: string }>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(JSON.parse(out));
    });
    child.once("exit", (code) => reject(new Error(`child exited early with ${code}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { child, info, exited };
}

describe("a process that ends without close()", () => {
  for (const how of ["SIGTERM", "SIGINT", "exit"] as const) {
    it(`ends its browser and removes the temporary profile on ${how}`, async () => {
      const { child, info, exited } = await openInChild();
      expect(existsSync(info.profile)).toBe(true);
      if (how === "exit") child.stdin.write("exit\n");
      else child.kill(how);
      await exited;
      expect(await waitUntilGone(info.pid)).toEqual([]);
      expect(existsSync(dirname(info.profile))).toBe(false);
    });
  }
});
