/**
 * What a job is: a page, an action, what to extract, optionally a schema, a model and
 * variables. The environment overrides a definition: JOB_URL, JOB_ACT, JOB_EXTRACT, JOB_MODEL,
 * JOB_CACHE_DIR, JOB_BUDGET_MS, JOB_EGRESS, JOB_VAR_<NAME> for `%NAME%` (values never sent to the
 * model) and JOB_ORIGINS_<NAME> for the other origins it may be typed on.
 */
import { z } from "zod";
import { ServiceValidationError } from "../errors.js";
import { ModelConfigurationSchema } from "../model/config.js";
import { parseInput, VariablesSchema } from "../options.js";
import { egressFromEnv, JobEgressSchema } from "./egress.js";

export const JobDefinitionSchema = z.strictObject({
  url: z
    .url({ error: "expected the page's absolute URL" })
    .describe("The page the job opens. `JOB_URL` overrides it."),
  act: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe("What to do there, in words (one act call). `JOB_ACT` overrides it."),
  extract: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe("What to extract, in words. `JOB_EXTRACT` overrides it."),
  schema: z
    .custom<z.ZodType>((v) => v instanceof z.ZodType, { error: "expected a zod schema" })
    .optional()
    .meta({
      type: "ZodType",
      description: "The shape of the extracted data; the answer's `data` is then its JSON text.",
    }),
  model: ModelConfigurationSchema.optional().describe(
    "The job's model (its key from the option or the provider's variable). `JOB_MODEL` overrides it.",
  ),
  variables: VariablesSchema.optional().describe(
    "Values for `%name%` tokens; `JOB_VAR_<NAME>` sets one from the environment.",
  ),
  cacheDir: z
    .string()
    .min(1)
    .optional()
    .describe(
      "A folder of recorded actions, committed with the repository and bundled with the function: the job's act replays them without the model. `npm start` records; a deployment replays, and its healed entries go to an overlay under the OS temp folder. `JOB_CACHE_DIR` overrides it.",
    ),
  budgetMs: z
    .number()
    .int()
    .min(5_000)
    .max(800_000)
    .optional()
    .describe(
      "The whole run's budget in ms (default 60000, never above vercel.json's maxDuration). `JOB_BUDGET_MS` overrides it.",
    ),
  egress: JobEgressSchema.optional(),
  context: z
    .strictObject({
      file: z
        .string()
        .min(1)
        .optional()
        .describe(
          "LOCAL: a context file sealed with `WAYFARER_CONTEXT_KEY` (`npm run login` makes it). `JOB_CONTEXT_FILE` overrides it.",
        ),
      id: z
        .string()
        .min(1)
        .optional()
        .describe(
          "REMOTE: a context of the service (`POST /v1/contexts`). `JOB_CONTEXT_ID` overrides it.",
        ),
      persist: z
        .boolean()
        .optional()
        .describe("Save the run's profile back at its end (default: no; `npm run login` saves)."),
    })
    .optional()
    .describe(
      "A login kept for the job's runs: the browser starts with the context's profile, logged in. The run uses `file` in LOCAL and `id` in REMOTE.",
    ),
});
export type JobDefinition = z.infer<typeof JobDefinitionSchema>;

/** The per-run override an authorised POST may carry. */
export const JobRequestSchema = z.strictObject({
  url: z.url().optional().describe("This run's page instead of the definition's."),
  act: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe("This run's action instead of the definition's."),
  extract: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe("This run's extraction instead of the definition's."),
});

/** The definition with the environment's overrides (and a request's, when given) applied. */
export function resolveJob(
  base: Partial<JobDefinition>,
  env: Record<string, string | undefined> = process.env,
  request?: unknown,
): JobDefinition {
  const overrides =
    request === undefined ? {} : parseInput(JobRequestSchema, request, "request body");
  const variables = { ...(base.variables ?? {}) };
  for (const [key, value] of Object.entries(env)) {
    const m = key.match(/^JOB_VAR_(\w+)$/);
    if (m && value !== undefined) variables[m[1]!] = value;
  }
  for (const [key, value] of Object.entries(env)) {
    const m = key.match(/^JOB_ORIGINS_(\w+)$/);
    if (!m || value === undefined) continue;
    const name = m[1]!;
    const given = variables[name];
    if (given === undefined) {
      throw new ServiceValidationError(key, [
        { path: [], message: `names origins for %${name}%, but no JOB_VAR_${name} is set` },
      ]);
    }
    const origins = value
      .split(",")
      .map((o) => o.trim())
      .filter(Boolean);
    variables[name] = typeof given === "object" ? { ...given, origins } : { value: given, origins };
  }
  const budget = env.JOB_BUDGET_MS ? Number(env.JOB_BUDGET_MS) : base.budgetMs;
  // JOB_EGRESS=on keeps a definition's allowHosts; off turns the guard off whatever it says.
  const egress = egressFromEnv(env.JOB_EGRESS);
  const egressOverride =
    egress === false || (egress === true && base.egress === false) ? { egress } : {};
  return parseInput(
    JobDefinitionSchema,
    {
      ...base,
      ...(env.JOB_URL ? { url: env.JOB_URL } : {}),
      ...(env.JOB_ACT ? { act: env.JOB_ACT } : {}),
      ...(env.JOB_EXTRACT ? { extract: env.JOB_EXTRACT } : {}),
      ...(env.JOB_MODEL ? { model: env.JOB_MODEL } : {}),
      ...(env.JOB_CACHE_DIR ? { cacheDir: env.JOB_CACHE_DIR } : {}),
      ...(env.JOB_CONTEXT_FILE || env.JOB_CONTEXT_ID
        ? {
            context: {
              ...base.context,
              ...(env.JOB_CONTEXT_FILE ? { file: env.JOB_CONTEXT_FILE } : {}),
              ...(env.JOB_CONTEXT_ID ? { id: env.JOB_CONTEXT_ID } : {}),
            },
          }
        : {}),
      ...(budget !== undefined ? { budgetMs: budget } : {}),
      ...egressOverride,
      ...(Object.keys(variables).length ? { variables } : {}),
      ...overrides,
    },
    "job definition",
  );
}
