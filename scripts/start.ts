/**
 * `npm start`: runs the job of job.config.ts (with the environment's JOB_* overrides) once, with
 * a progress line per step, and prints the JSON answer the deployed function would give.
 * Without a model key it stops at once and says which variable to set (or `npm run demo`).
 *
 *   npm start -- --record                   # the same run, recorded into recordings/job/
 *   npm start -- --record --recording recordings/login
 *   npm start -- --prompts                  # also prints what the model is sent, call by call
 *   npm start -- --job jobs/other.ts        # the job another module exports, not job.config.ts
 *
 * A recording (docs/guide/job.md, "Record once, replay offline") is what `npm test` and
 * `npm run offline` replay with no key; the action cache entries it wrote also go to the job's
 * cacheDir, as a plain run's do.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import { failureMessage } from "../lib/job/failureMessage.js";
import { recordJob } from "../lib/job/recording/recordJob.js";
import { runJob } from "../lib/job/runJob.js";
import { baseJob, DEFAULT_RECORDING, printPrompt, progress } from "./jobCli.js";
import { configuredJob } from "./needsModelKey.js";

/** The step a failed run was in, for its message. */
let failedStep: string | undefined;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      record: { type: "boolean" },
      recording: { type: "string" },
      prompts: { type: "boolean" },
      job: { type: "string" },
    },
    strict: true,
  });
  const definition = configuredJob(await baseJob(values.job));
  if (!definition) return;
  const options = {
    onStep: progress,
    onFailure: (last: { step?: string }) => (failedStep = last.step),
    onModelCall: values.prompts ? printPrompt : undefined,
  };
  if (!values.record) {
    const result = await runJob(definition, options);
    console.log(JSON.stringify({ ok: true, data: result.data, timings: result.timings }));
    return;
  }
  const folder = values.recording ?? DEFAULT_RECORDING;
  const { result, recording, cache } = await recordJob(definition, { ...options, folder });
  // As a plain run would have: the act's entries in the committed cache, for the deployment.
  if (definition.cacheDir) {
    for (const [name, text] of cache) {
      const file = join(definition.cacheDir, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
    }
  }
  const where = relative(process.cwd(), folder) || folder;
  console.log(
    `recorded ${where}: ${recording.responses.length} responses, ${recording.modelCalls.length} model calls, ${cache.size} action cache entries${cache.size && definition.cacheDir ? ` (also in ${definition.cacheDir}/)` : ""}. Commit it: npm test replays it offline.`,
  );
  console.log(JSON.stringify({ ok: true, data: result.data, timings: result.timings }));
}

main().catch((error: unknown) => {
  console.error(JSON.stringify({ ok: false, error: failureMessage(error, { step: failedStep }) }));
  process.exitCode = 1;
});
