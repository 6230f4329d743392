/**
 * `npm run offline`, as a reader runs it, in a process of its own with no model key: with
 * --page and --model, a job on a saved page with a scripted model, answering as `npm start`
 * does; without them, the job's recording (test/job/recording.test.ts replays one). The job is
 * a fixture's (--job), so these hold whatever job.config.ts says.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);
const STORY = ["--job", "test/job/fixtures/storyJob.ts"];
const SAVED = ["--page", "test/job/own/page.html", "--model", "test/job/own/model.ts"];

/** scripts/offline.ts as `npm run offline -- args` runs it, with no model key at hand. */
function offline(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(JOB_|OPENAI_|WAYFARER_API_KEY$)/.test(k)),
  ) as Record<string, string>;
  return run(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "offline.ts"), ...args], {
    cwd: ROOT,
    timeout: 90_000,
    env: { ...clean, ...env },
  }).then(
    (done) => ({ code: 0, ...done }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

const lastLine = (text: string) => JSON.parse(text.trim().split("\n").at(-1)!);

describe("npm run offline", () => {
  it("runs the job on a saved page with a scripted model, says so, and answers", async () => {
    const done = await offline([...STORY, ...SAVED], {
      // Where a real model would be asked: never, here.
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(
      "test/job/own/page.html stands in for https://news.ycombinator.com/",
    );
    expect(done.stdout).toContain("… extract");
    expect(lastLine(done.stdout)).toMatchObject({
      ok: true,
      data: "A compiler written in a weekend",
    });
  });

  it("takes the act from JOB_ACT, and --prompts prints what the model is sent", async () => {
    const done = await offline([...STORY, ...SAVED, "--prompts"], {
      JOB_ACT: "open the comments of the top story",
    });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("… act");
    expect(done.stdout).toContain("Instruction: the title of the top story");
    // The extract read the comments page, where the act's click led.
    expect(done.stdout).toContain("ada: It started as a bet.");
    expect(lastLine(done.stdout)).toMatchObject({
      ok: true,
      data: "A compiler written in a weekend",
    });
  });

  it("refuses a model module without its handlers, naming it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "wayfarer-offline-"));
    try {
      const empty = join(folder, "model.ts");
      writeFileSync(empty, "export const nothing = 1;\n");
      const failed = await offline([
        ...STORY,
        "--page",
        "test/job/own/page.html",
        "--model",
        empty,
      ]);
      expect(failed.code).toBe(1);
      expect(lastLine(failed.stderr)).toEqual({
        ok: false,
        error: expect.stringContaining(`${empty} has no default export`),
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("says what to do when there is no recording, or --page comes without --model", async () => {
    const none = await offline([...STORY, "--recording", "test/job/fixtures/no-such-recording"]);
    expect(none.code).toBe(1);
    expect(lastLine(none.stderr).error).toContain(
      "no recording at test/job/fixtures/no-such-recording: record your job once with a model key (npm start -- --record)",
    );
    const half = await offline([...STORY, "--page", "test/job/own/page.html"]);
    expect(half.code).toBe(1);
    expect(lastLine(half.stderr).error).toContain("--page and --model go together");
  });
});
