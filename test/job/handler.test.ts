/**
 * The deployed handler (api/run.ts) with your job, job.config.ts as it is: the cron's GET with
 * the secret answers 200 and your recording's answer (its page and model answered from
 * recordings/job/, offline), without the secret 401, and a deployment without CRON_SECRET
 * refuses to run. With no recording, or one of an earlier job, the replayed call is skipped and
 * says why (test/job/recordings.test.ts says the same).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as run from "../../api/run.js";
import { job } from "../../job.config.js";
import { type JobDefinition, resolveJob } from "../../lib/job/definition.js";
import { type LoadedRecording, readRecording } from "../../lib/job/recording/folder.js";
import { RECORDING_FILE } from "../../lib/job/recording/format.js";
import { replaySetup, staleRecording } from "../../lib/job/recording/replayJob.js";
import type { JobOptions } from "../../lib/job/runJob.js";
import { restoreEnvAfterwards } from "../support/env.js";

const FOLDER = join(import.meta.dirname, "..", "..", "recordings", "job");
const SECRET = "cron-secret-of-the-handler-test-0123456";

/** The recording the handler's run is answered from, while a test sets it. */
const replaying: { loaded?: LoadedRecording } = {};

// The handler's own runJob, its page and model answered from the recording.
vi.mock("../../lib/job/runJob.js", async (original) => {
  const actual = await original<typeof import("../../lib/job/runJob.js")>();
  return {
    ...actual,
    runJob: (definition: JobDefinition, options: JobOptions = {}) => {
      if (!replaying.loaded) return actual.runJob(definition, options);
      const setup = replaySetup(definition, replaying.loaded, "recordings/job");
      return actual.runJob(setup.job, {
        ...options,
        client: { ...options.client, env: "LOCAL" },
        tap: setup.tap,
      });
    },
  };
});

let restore: () => void = () => {};
beforeEach(() => {
  restore = restoreEnvAfterwards();
  for (const name of Object.keys(process.env)) {
    if (/^(JOB_|RESULT_WEBHOOK|WAYFARER_API_KEY$)/.test(name)) delete process.env[name];
  }
  process.env.CRON_SECRET = SECRET;
  delete process.env.VERCEL;
});
afterEach(() => {
  replaying.loaded = undefined;
  restore();
});

const cron = (authorization?: string) =>
  run.GET(
    new Request("https://wayfarer.example/api/run", {
      headers: authorization ? { authorization } : {},
    }),
  );

describe("api/run.ts with job.config.ts's job", () => {
  it("answers the cron's GET with the recorded answer: 200 {ok: true, data}", async (context) => {
    if (!existsSync(join(FOLDER, RECORDING_FILE))) {
      context.skip("no recordings/job yet: npm start -- --record makes it");
    }
    const loaded = await readRecording(FOLDER);
    const stale = staleRecording(loaded, resolveJob(job, process.env), "recordings/job");
    if (stale) context.skip(stale);
    replaying.loaded = loaded;
    const answer = await cron(`Bearer ${SECRET}`);
    expect(await answer.json()).toEqual({ ok: true, data: loaded.recording.answer.data });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("server-timing")).toContain("goto;dur=");
  });

  it("refuses the cron's GET without the secret: 401", async () => {
    const answer = await cron();
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ ok: false, error: expect.stringContaining("Bearer") });
  });

  it("deployed without CRON_SECRET, refuses to run: 500", async () => {
    delete process.env.CRON_SECRET;
    process.env.VERCEL = "1";
    const answer = await cron("Bearer anything");
    expect(answer.status).toBe(500);
    expect((await answer.json()).error).toContain("CRON_SECRET is not set");
  });
});
