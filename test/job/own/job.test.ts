/**
 * The template for testing your own job offline: job.config.ts's job, as it is, run on a saved
 * copy of its page (page.html, served on 127.0.0.1) with a scripted model (model.ts), in a real
 * Chromium. Nothing leaves the machine and no model key is needed. For a job of your own: edit
 * job.config.ts, save your page over page.html, make model.ts answer your act and extract from
 * the outline, and write here what the job must answer (docs/guide/job.md, "Run your own job
 * offline"). `npm run offline` runs the same job, page and model from the command line.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { job } from "../../../job.config.js";
import { type JobDefinition, resolveJob } from "../../../lib/job/definition.js";
import { runJob } from "../../../lib/job/runJob.js";
import { promptOf, useModelServer } from "../../support/llm/modelServer.js";
import { type PageServer, servePage } from "../../support/pageServer.js";
import model from "./model.js";

const models = useModelServer(...model);
let page: PageServer | undefined;
afterEach(async () => {
  await page?.close();
  page = undefined;
});

/**
 * The job of job.config.ts (with `env` as JOB_* overrides), its page the saved copy, its model
 * the scripted one: the same model name, a key that is not one, and no recorded actions (the
 * committed job-cache/ is the real page's).
 */
async function offline(env: Record<string, string> = {}): Promise<JobDefinition> {
  page = await servePage(join(import.meta.dirname, "page.html"));
  const configured = resolveJob(job, env);
  const modelName =
    typeof configured.model === "string" ? configured.model : configured.model?.modelName;
  return {
    ...configured,
    url: page.url,
    model: { modelName: modelName ?? "openai/gpt-4.1-mini", apiKey: "scripted-model-no-key" },
    cacheDir: undefined,
  };
}

describe("the job of job.config.ts, offline", () => {
  it("answers the top story's title from the saved page", async () => {
    const result = await runJob(await offline());
    expect(result.data).toBe("A compiler written in a weekend");
    // Every step ran, and the model was asked (only by the scripted handlers: nothing else answers).
    expect(Object.keys(result.timings)).toEqual(expect.arrayContaining(["goto", "extract"]));
    expect(models.requests().length).toBeGreaterThan(0);
  });

  it("with an act (JOB_ACT), opens the top story's comments and reads the title there", async () => {
    const result = await runJob(await offline({ JOB_ACT: "open the comments of the top story" }));
    expect(result.data).toBe("A compiler written in a weekend");
    expect(Object.keys(result.timings)).toEqual(expect.arrayContaining(["act", "extract"]));
    // The extract read the comments page, where the click led.
    expect(promptOf(models.requests().at(-1)!)).toContain("It started as a bet");
  });
});
