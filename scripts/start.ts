/**
 * `npm start`: runs the job of job.config.ts (with the environment's JOB_* overrides) once, with
 * a progress line per step, and prints the JSON answer the deployed function would give.
 * Without a model key it stops at once and says which variable to set (or `npm run demo`).
 */
import { job } from "../job.config.js";
import { MissingLLMConfigurationError } from "../lib/errors.js";
import { resolveJob } from "../lib/job/definition.js";
import { runJob } from "../lib/job/runJob.js";
import { resolveModel } from "../lib/model/providers.js";

async function main(): Promise<void> {
  const definition = resolveJob(job, process.env);
  if (definition.model) {
    try {
      resolveModel(definition.model, process.env);
    } catch (error) {
      if (!(error instanceof MissingLLMConfigurationError)) throw error;
      console.error(
        `${error.message}\nNo key at hand? \`npm run demo\` runs the whole job offline.`,
      );
      process.exitCode = 1;
      return;
    }
  }
  const result = await runJob(definition, { onStep: (step) => console.log(`… ${step}`) });
  console.log(JSON.stringify({ ok: true, data: result.data, timings: result.timings }));
}

main().catch((error: unknown) => {
  console.error(
    JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
  process.exitCode = 1;
});
