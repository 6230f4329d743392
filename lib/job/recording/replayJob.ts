/**
 * Replays a recording offline: today's job (job.config.ts as it is) runs in a real browser
 * whose every request is answered from the recorded responses, its model calls answered from
 * the recorded ones, with no key and nothing sent anywhere; it must give the recorded answer.
 * A recording of another job (the job was edited since) is stale: not replayed, and the
 * outcome says what differs.
 */
import { isDeepStrictEqual } from "node:util";
import { replayTraffic, type TrafficReplay } from "../../browser/trafficReplay.js";
import type { Variables } from "../../options.js";
import type { JobDefinition } from "../definition.js";
import { failureMessage } from "../failureMessage.js";
import { type JobOptions, type JobResult, type JobTap, runJob } from "../runJob.js";
import { type LoadedRecording, readRecording } from "./folder.js";
import type { RecordedJob } from "./format.js";
import { ModelReplay } from "./modelReplay.js";
import { recordedJob } from "./recordJob.js";

export type ReplayOutcome =
  | { status: "passed"; result: JobResult; name: string }
  | { status: "stale"; why: string; name: string }
  | { status: "failed"; why: string; name: string; missing: string[] };

export interface ReplayOptions extends Omit<JobOptions, "tap"> {
  /** How the recording is named in messages (its folder as given, by default). */
  name?: string;
}

export async function replayJob(
  job: JobDefinition,
  folder: string,
  options: ReplayOptions = {},
): Promise<ReplayOutcome> {
  const { name = folder, ...jobOptions } = options;
  const loaded = await readRecording(folder);
  const stale = staleRecording(loaded, job, name);
  if (stale) return { status: "stale", name, why: stale };
  return replayLoaded(job, loaded, name, jobOptions);
}

/** Why the recording is not of `job` (edited since), in a sentence; "" when it is. */
export function staleRecording(loaded: LoadedRecording, job: JobDefinition, name: string): string {
  const stale = staleness(loaded.recording.job, recordedJob(job));
  return stale
    ? `${name} is a recording of another job: ${stale}. Record the job again: npm start -- --record`
    : "";
}

/** How a run is replayed: the job as the replay runs it, and what answers its browser and model. */
export interface ReplaySetup {
  job: JobDefinition;
  tap: JobTap;
  models: ModelReplay;
  /** Requests the recording could not answer so far. */
  missing(): string[];
}

export function replaySetup(
  job: JobDefinition,
  loaded: LoadedRecording,
  name: string,
): ReplaySetup {
  const { recording } = loaded;
  const models = new ModelReplay(recording.modelCalls, loaded.prompts, name);
  let traffic: TrafficReplay | undefined;
  return {
    job: {
      ...job,
      // The model is never asked (every call is answered from the recording): no key.
      model: { modelName: recording.job.model ?? "openai/gpt-4.1-mini" },
      // Every call made, as when recorded: the cache would skip the act's.
      cacheDir: undefined,
      // What the browser types is the %NAME% the recording kept in place of each value.
      variables: asTokens(job.variables, recording.job.variables),
    },
    tap: {
      models,
      offline: true,
      opened: async (context) => {
        traffic = await replayTraffic(context, loaded.responses);
      },
    },
    models,
    missing: () => traffic?.missing() ?? [],
  };
}

async function replayLoaded(
  job: JobDefinition,
  loaded: LoadedRecording,
  name: string,
  options: Omit<JobOptions, "tap">,
): Promise<ReplayOutcome> {
  const { recording } = loaded;
  const setup = replaySetup(job, loaded, name);
  const { models } = setup;
  const failed = (why: string): ReplayOutcome => ({
    status: "failed",
    name,
    why,
    missing: setup.missing(),
  });
  let result: JobResult;
  try {
    result = await runJob(setup.job, {
      ...options,
      client: { ...options.client, env: "LOCAL" },
      tap: setup.tap,
    });
  } catch (error) {
    const mismatch = models.failure();
    return failed(mismatch ? mismatch.message : `the job failed: ${failureMessage(error)}`);
  }
  if (result.data !== recording.answer.data) {
    return failed(
      `the job answered ${JSON.stringify(result.data)}, the recording ${JSON.stringify(recording.answer.data)}`,
    );
  }
  if (models.unused() > 0) {
    return failed(
      `the job made ${recording.modelCalls.length - models.unused()} of the recording's ${recording.modelCalls.length} model calls`,
    );
  }
  return { status: "passed", name, result };
}

/** What differs between the recorded job and today's, in words; "" when they are the same. */
function staleness(recorded: RecordedJob, now: RecordedJob): string {
  const differences: string[] = [];
  for (const field of ["url", "act", "extract", "model"] as const) {
    if (recorded[field] !== now[field]) {
      differences.push(
        `its ${field} was ${show(recorded[field])}, the job now says ${show(now[field])}`,
      );
    }
  }
  if (!isDeepStrictEqual(recorded.schema, now.schema)) differences.push("its schema differs");
  // Variables are not compared: their values come from JOB_VAR_* where the job runs, and a
  // replay types each one's %NAME% in its place.
  return differences.join("; ");
}

function show(value: string | undefined): string {
  return value === undefined ? "nothing" : JSON.stringify(value);
}

/** Each variable of the job or the recording, its value its own `%NAME%` (origins kept). */
function asTokens(
  variables: Variables | undefined,
  recorded: string[] = [],
): Variables | undefined {
  const tokens: Variables = Object.fromEntries(recorded.map((name) => [name, `%${name}%`]));
  for (const [name, v] of Object.entries(variables ?? {})) {
    tokens[name] = typeof v === "object" ? { ...v, value: `%${name}%` } : `%${name}%`;
  }
  return Object.keys(tokens).length ? tokens : undefined;
}
