/**
 * The job this deployment runs on its schedule: edit this file for your own. The environment
 * overrides it on a deployment (JOB_URL, JOB_ACT, JOB_EXTRACT, JOB_MODEL, JOB_BUDGET_MS, and
 * JOB_VAR_<NAME> for a %NAME% variable), and an authorised POST may override url, act and
 * extract for one run. See docs/guide/job.md.
 */
import type { JobDefinition } from "./lib/job/definition.js";

export const job: Partial<JobDefinition> = {
  url: "https://news.ycombinator.com/",
  // act: "open the comments of the top story",
  extract: "the title of the top story",
  // schema: z.object({ title: z.string(), points: z.number() }),
  model: "openai/gpt-4.1-mini",
  // Recorded actions: `npm start` records, commit the folder, the deployment replays.
  cacheDir: "job-cache",
};
