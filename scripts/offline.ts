/**
 * `npm run offline`: your job (job.config.ts, with the environment's JOB_* overrides) once, on a
 * saved copy of its page served on 127.0.0.1, with a scripted model of your own answering in
 * this process (msw): no model key, nothing sent to a provider. Prints a progress line per step
 * and the JSON answer, as `npm start` does with the real page and model.
 *
 *   npm run offline                     # test/job/own/page.html and test/job/own/model.ts
 *   npm run offline -- --page saved/index.html --model test/mine/model.ts
 *
 * The model module's default export is its msw handlers (test/support/llm/README.md). The job
 * runs LOCAL, without its recorded actions (job-cache/ is the real page's). See docs/guide/job.md.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { RequestHandler } from "msw";
import { setupServer } from "msw/node";
import { job } from "../job.config.js";
import { resolveJob } from "../lib/job/definition.js";
import { failureMessage } from "../lib/job/failureMessage.js";
import { runJob } from "../lib/job/runJob.js";
import { servePage } from "../test/support/pageServer.js";

const DEFAULTS = { page: "test/job/own/page.html", model: "test/job/own/model.ts" };
/** What would send the run elsewhere than this machine's page and model. */
const ELSEWHERE = ["WAYFARER_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"];

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

let failedStep: string | undefined;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { page: { type: "string" }, model: { type: "string" } },
    strict: true,
  });
  const pageFile = resolve(values.page ?? DEFAULTS.page);
  const modelFile = resolve(values.model ?? DEFAULTS.model);
  const handlers = (await import(pathToFileURL(modelFile).href)).default as
    | RequestHandler[]
    | RequestHandler
    | undefined;
  if (!handlers) throw new Error(`${modelFile} has no default export: export its msw handlers`);
  for (const name of ELSEWHERE) delete process.env[name];

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
      {
        onStep: (step) => console.log(`… ${step}`),
        onFailure: (last) => (failedStep = last.step),
      },
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
