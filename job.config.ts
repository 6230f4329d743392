/**
 * The job this deployment runs on its schedule: edit this file for your own, then record it once
 * (`npm start -- --record`) so that `npm test` replays it offline. The environment overrides each
 * field on a deployment (the JOB_* variables: docs/reference/environment.md), and an authorised
 * POST may override url, act and extract for one run. See docs/guide/job.md.
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
