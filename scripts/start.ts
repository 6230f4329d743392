/**
 * `npm start`: runs the job of job.config.ts (with the environment's JOB_* overrides) once, with
 * a progress line per step, and prints the JSON answer the deployed function would give.
 * Without a model key it stops at once and says which variable to set (or `npm run demo`).
 */
import { failureMessage } from "../lib/job/failureMessage.js";
import { runJob } from "../lib/job/runJob.js";
import { configuredJob } from "./needsModelKey.js";

/** The step a failed run was in, for its message. */
let failedStep: string | undefined;

async function main(): Promise<void> {
  const definition = configuredJob();
  if (!definition) return;
  const result = await runJob(definition, {
    onStep: (step) => console.log(`… ${step}`),
    onFailure: (last) => (failedStep = last.step),
  });
  console.log(JSON.stringify({ ok: true, data: result.data, timings: result.timings }));
}

main().catch((error: unknown) => {
  console.error(JSON.stringify({ ok: false, error: failureMessage(error, { step: failedStep }) }));
  process.exitCode = 1;
});
