/** What `npm start` and `npm run offline` share: the job, where a recording goes, --prompts. */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { job } from "../job.config.js";
import type { JobDefinition } from "../lib/job/definition.js";
import type { TappedCall } from "../lib/model/modelTap.js";

/** The job's recording, unless --recording names another folder. */
export const DEFAULT_RECORDING = "recordings/job";

/** --prompts: a model call as it is sent, between two rules (the answer stays the last line). */
export function printPrompt(call: TappedCall): void {
  const rule = "─".repeat(20);
  console.log(`${rule} ${call.operation} → ${call.model} ${rule}\n${call.prompt}\n${rule}`);
}

/** job.config.ts's job, or with --job the `job` another module exports (a second job, a test's). */
export async function baseJob(module: string | undefined): Promise<Partial<JobDefinition>> {
  if (module === undefined) return job;
  const loaded = (await import(pathToFileURL(resolve(module)).href)) as {
    job?: Partial<JobDefinition>;
  };
  if (!loaded.job) throw new Error(`${module} exports no job: export const job = { url, ... }`);
  return loaded.job;
}

/** A progress line per step: `… act: add black tea to the cart`. */
export function progress(step: string, about?: string): void {
  console.log(`… ${step}${about ? `: ${about}` : ""}`);
}
