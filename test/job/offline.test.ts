/**
 * `npm run offline`, as a reader runs it: job.config.ts's job on the saved page with the scripted
 * model of test/job/own/ (or a page and model given by --page and --model), in a process of its
 * own, answering as `npm start` does; a model module without its handlers is refused, naming it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

/** scripts/offline.ts as `npm run offline -- args` runs it, with no model key at hand. */
function offline(args: string[], env: Record<string, string> = {}) {
  const clean = { ...process.env } as Record<string, string>;
  for (const name of ["OPENAI_API_KEY", "WAYFARER_API_KEY", "JOB_URL", "JOB_ACT", "JOB_EXTRACT"]) {
    delete clean[name];
  }
  return run(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "offline.ts"), ...args], {
    cwd: ROOT,
    timeout: 90_000,
    env: { ...clean, ...env },
  });
}

const answerOf = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!);

describe("npm run offline", () => {
  it("runs job.config.ts's job on the saved page with the scripted model, and says so", async () => {
    const { stdout } = await offline([], {
      // Where a real model would be asked: never, here.
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    expect(stdout).toContain("OFFLINE: ");
    expect(stdout).toContain("stands in for https://news.ycombinator.com/");
    expect(stdout).toContain("… extract");
    expect(answerOf(stdout)).toMatchObject({ ok: true, data: "A compiler written in a weekend" });
  });

  it("takes the page and the model from --page and --model, and the act from JOB_ACT", async () => {
    const { stdout } = await offline(
      ["--page", "test/job/own/page.html", "--model", "test/job/own/model.ts"],
      { JOB_ACT: "open the comments of the top story" },
    );
    expect(stdout).toContain("test/job/own/page.html stands in for");
    expect(stdout).toContain("… act");
    expect(answerOf(stdout)).toMatchObject({ ok: true, data: "A compiler written in a weekend" });
  });

  it("refuses a model module without its handlers, naming it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "wayfarer-offline-"));
    try {
      const empty = join(folder, "model.ts");
      writeFileSync(empty, "export const nothing = 1;\n");
      const failed = await offline(["--model", empty]).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(JSON.parse(failed!.stderr.trim().split("\n").at(-1)!)).toEqual({
        ok: false,
        error: expect.stringContaining(`${empty} has no default export`),
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
