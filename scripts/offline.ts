/**
 * `npm run offline`: your job (job.config.ts, with the environment's JOB_* overrides) once, with
 * no model key and nothing sent anywhere. Prints a progress line per step and the JSON answer, as
 * `npm start` does with the real page and model.
 *
 *   npm run offline                                  # replays recordings/job/
 *   npm run offline -- --recording recordings/login  # another recording
 *   npm run offline -- --page saved/index.html --model test/mine/model.ts
 *   npm run offline -- --prompts                     # also prints what the model is sent
 *   npm run offline -- --job jobs/other.ts           # another module's job, not job.config.ts
 *
 * A replay answers the browser from the recorded responses and the model from the recorded
 * calls, and must give the recorded answer (the same check `npm test` makes). With --page and
 * --model, a saved page served on 127.0.0.1 stands in for the job's page and a scripted model
 * (a module whose default export is its msw handlers, test/support/llm/README.md) for the model.
 * See docs/guide/job.md.
 */
import { existsSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { RequestHandler } from "msw";
import { setupServer } from "msw/node";
import { type JobDefinition, resolveJob } from "../lib/job/definition.js";
import { failureMessage } from "../lib/job/failureMessage.js";
import { RECORDING_FILE } from "../lib/job/recording/format.js";
import { replayJob } from "../lib/job/recording/replayJob.js";
import { runJob } from "../lib/job/runJob.js";
import { servePage } from "../test/support/pageServer.js";
import { baseJob, DEFAULT_RECORDING, printPrompt, progress } from "./jobCli.js";

/** What would send the run elsewhere than this machine's page and model. */
const ELSEWHERE = ["WAYFARER_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"];

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

let failedStep: string | undefined;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      recording: { type: "string" },
      page: { type: "string" },
      model: { type: "string" },
      prompts: { type: "boolean" },
      job: { type: "string" },
    },
    strict: true,
  });
  for (const name of ELSEWHERE) delete process.env[name];
  const watch = {
    onStep: progress,
    onFailure: (last: { step?: string }) => (failedStep = last.step),
    onModelCall: values.prompts ? printPrompt : undefined,
  };
  if (values.page !== undefined || values.model !== undefined) {
    if (values.page === undefined || values.model === undefined) {
      throw new Error("--page and --model go together: a saved page and the scripted model for it");
    }
    return scripted(await baseJob(values.job), resolve(values.page), resolve(values.model), watch);
  }
  const folder = values.recording ?? DEFAULT_RECORDING;
  const name = relative(process.cwd(), resolve(folder)) || folder;
  if (!existsSync(join(folder, RECORDING_FILE))) {
    throw new Error(
      `no recording at ${name}: record your job once with a model key (npm start -- --record), or give a saved page and a scripted model (--page, --model)`,
    );
  }
  console.log(`OFFLINE: ${name} answers the browser and the model; nothing leaves this machine.`);
  const job = resolveJob(await baseJob(values.job), process.env);
  const outcome = await replayJob(job, folder, { ...watch, name });
  if (outcome.status !== "passed") {
    const missing = outcome.status === "failed" ? outcome.missing : [];
    if (missing.length) console.log(`not in the recording: ${missing.join(", ")}`);
    throw new Error(outcome.why);
  }
  const { result } = outcome;
  console.log(JSON.stringify({ ok: true, data: result.data, timings: result.timings }));
}

async function scripted(
  job: Partial<JobDefinition>,
  pageFile: string,
  modelFile: string,
  watch: Parameters<typeof runJob>[1],
): Promise<void> {
  const handlers = (await import(pathToFileURL(modelFile).href)).default as
    | RequestHandler[]
    | RequestHandler
    | undefined;
  if (!handlers) throw new Error(`${modelFile} has no default export: export its msw handlers`);
  const model = setupServer(...[handlers].flat());
  // The browser's CDP socket and the page are on this machine and pass; anything else no handler
  // answers (a model call the script does not cover) is an error, never a request to a provider.
  model.listen({
    onUnhandledRequest: (request, print) => {
      if (!LOOPBACK.has(new URL(request.url).hostname)) print.error();
    },
  });
  const page = await servePage(pageFile);
  try {
    const configured = resolveJob(job, process.env);
    const modelName =
      typeof configured.model === "string" ? configured.model : configured.model?.modelName;
    console.log(
      `OFFLINE: ${pageFile} stands in for ${configured.url}, and ${modelFile} for the model.`,
    );
    const result = await runJob(
      {
        ...configured,
        url: page.url,
        model: { modelName: modelName ?? "openai/gpt-4.1-mini", apiKey: "scripted-model-no-key" },
        cacheDir: undefined,
      },
      watch,
    );
    console.log(JSON.stringify({ ok: true, data: result.data, timings: result.timings }));
  } finally {
    await page.close();
    model.close();
  }
}

main().catch((error: unknown) => {
  console.error(JSON.stringify({ ok: false, error: failureMessage(error, { step: failedStep }) }));
  process.exitCode = 1;
});
