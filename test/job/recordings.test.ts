/**
 * Your job, tested by its recordings: every folder under recordings/ (`npm start -- --record`
 * makes one) is replayed offline, with no key, against job.config.ts as it is now (with the
 * environment's JOB_* overrides, as `npm start` reads them): the browser answered from the
 * recorded responses, the model from the recorded calls, and the job must give the recorded
 * answer. A call the recording cannot answer fails, naming what changed (the page outline, the
 * instruction, the schema). A recording of another job (job.config.ts was edited since) is
 * skipped and says what differs: record again.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { job } from "../../job.config.js";
import { resolveJob } from "../../lib/job/definition.js";
import { readRecording } from "../../lib/job/recording/folder.js";
import { RECORDING_FILE } from "../../lib/job/recording/format.js";
import { recordedJob } from "../../lib/job/recording/recordJob.js";
import { replayJob } from "../../lib/job/recording/replayJob.js";

const ROOT = join(import.meta.dirname, "..", "..");
const RECORDINGS = join(ROOT, "recordings");

const found = existsSync(RECORDINGS)
  ? readdirSync(RECORDINGS)
      .filter((name) => !name.startsWith(".") && existsSync(join(RECORDINGS, name, RECORDING_FILE)))
      .sort()
  : [];

describe("the job's recordings", () => {
  if (found.length === 0) it.skip("no recording yet: npm start -- --record makes one", () => {});

  for (const name of found) {
    const folder = join(RECORDINGS, name);
    const today = resolveJob(job, process.env);
    it(`recordings/${name} replays to its recorded answer`, async (context) => {
      const { recording } = await readRecording(folder);
      const outcome = await replayJob(today, folder, { name: `recordings/${name}` });
      if (outcome.status === "stale") {
        // Not this job's: job.config.ts was edited after it was recorded.
        console.warn(`skipped: ${outcome.why}`);
        expect(recording.job).not.toEqual(recordedJob(today));
        context.skip(outcome.why);
        return;
      }
      const detail =
        outcome.status === "failed" && outcome.missing.length
          ? `${outcome.why} (not in the recording: ${outcome.missing.join(", ")})`
          : outcome.status === "failed"
            ? outcome.why
            : "";
      expect(outcome.status, detail).toBe("passed");
      if (outcome.status === "passed") expect(outcome.result.data).toBe(recording.answer.data);
    });
  }
});
