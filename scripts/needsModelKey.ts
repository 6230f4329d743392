/**
 * `npm start` and `npm run dev` stop at once without a model key: the message names what to
 * set, and points to the offline demo.
 */
import { job } from "../job.config.js";
import { MissingLLMConfigurationError } from "../lib/errors.js";
import { type JobDefinition, resolveJob } from "../lib/job/definition.js";
import { resolveModel } from "../lib/model/providers.js";

/** The job as configured; undefined (after saying why) when its model has no key. */
export function configuredJob(base: Partial<JobDefinition> = job): JobDefinition | undefined {
  const definition = resolveJob(base, process.env);
  if (!definition.model) return definition;
  try {
    resolveModel(definition.model, process.env);
    return definition;
  } catch (error) {
    if (!(error instanceof MissingLLMConfigurationError)) throw error;
    console.error(`${error.message}\nNo key at hand? \`npm run demo\` runs the whole job offline.`);
    process.exitCode = 1;
    return undefined;
  }
}
