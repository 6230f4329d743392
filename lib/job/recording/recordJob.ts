/**
 * Records a real run of the job: the page as the browser received it, each model call and its
 * answer, the action cache it wrote and its answer, into a recording folder that `npm test`
 * replays offline. Before anything is written, the run's secrets (keys in the environment or
 * the model's options, the URL's credentials, cookie values) are scrubbed from every text and
 * each variable's value becomes its `%NAME%`.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { jsonSchemaOf } from "../../api/jsonSchema.js";
import type { Context } from "../../browser/context.js";
import {
  type CapturedResponse,
  recordTraffic,
  type TrafficRecorder,
} from "../../browser/trafficRecorder.js";
import { Redactor } from "../../log.js";
import { V3OptionsSchema } from "../../options.js";
import { secretsOf, urlSecrets } from "../../secrets.js";
import { hideVariables } from "../../variables.js";
import type { JobDefinition } from "../definition.js";
import { type JobOptions, type JobResult, runJob } from "../runJob.js";
import { bodyFileName, isText } from "./bodyFiles.js";
import { type RecordingFiles, writeRecording } from "./folder.js";
import { RECORDING_FORMAT, type RecordedJob, type Recording } from "./format.js";
import { ModelRecorder, systemHash } from "./modelRecorder.js";
import { promptParts } from "./promptParts.js";

export interface RecordOptions extends Omit<JobOptions, "tap"> {
  /** The recording's folder: replaced whole when the run succeeds, untouched when it fails. */
  folder: string;
  /**
   * A stand-in for the site, set on the browser's pages before the job navigates: it answers
   * requests inside the browser (the template's own recording, a test), so the page's host name
   * is not looked up first. What it answers is recorded as the site's.
   */
  standIn?: (context: Context) => Promise<void>;
}

export interface RecordOutcome {
  result: JobResult;
  recording: Recording;
  /** The action cache entries the run wrote, by file name (to commit with the job too). */
  cache: Map<string, string>;
}

export async function recordJob(
  job: JobDefinition,
  options: RecordOptions,
): Promise<RecordOutcome> {
  const { folder, standIn, ...jobOptions } = options;
  const models = new ModelRecorder();
  let traffic: TrafficRecorder | undefined;
  let received: { responses: CapturedResponse[]; cookies: string[] } | undefined;
  // A cold run, so that every model call is made and kept: a fresh cache, not the committed one.
  const cacheDir = job.cacheDir
    ? await mkdtemp(join(tmpdir(), "wayfarer-recording-cache-"))
    : undefined;
  try {
    const result = await runJob(
      { ...job, cacheDir },
      {
        ...jobOptions,
        client: { ...jobOptions.client, env: "LOCAL" },
        tap: {
          models,
          offline: standIn !== undefined,
          opened: async (context: Context) => {
            traffic = recordTraffic(context);
            await standIn?.(context);
          },
          finishing: async () => {
            received = await traffic?.stop();
          },
        },
      },
    );
    const scrub = scrubber(job, received?.cookies ?? []);
    const cache = cacheDir ? await cacheFiles(cacheDir, scrub) : new Map<string, string>();
    const files: RecordingFiles = new Map();
    for (const [name, text] of cache) files.set(`cache/${name}`, text);
    const recording: Recording = {
      format: RECORDING_FORMAT,
      recordedAt: new Date().toISOString(),
      job: recordedJob(job),
      modelCalls: models.calls().map(({ call, answer, usage }, i) => {
        const prompt = scrub(call.prompt);
        const file = `model/${i + 1}-${call.operation}.txt`;
        files.set(file, prompt);
        return {
          operation: call.operation,
          model: call.model,
          instruction: promptParts(prompt).instruction,
          prompt: file,
          system: systemHash(call.system),
          schema: call.schema,
          answer: scrubValue(answer, scrub),
          usage,
        };
      }),
      responses: responseFiles(received?.responses ?? [], files, scrub),
      answer: { data: scrub(result.data) },
    };
    await writeRecording(folder, recording, files);
    return { result, recording, cache };
  } finally {
    if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  }
}

/** The job as plain data: names, never values or keys. */
export function recordedJob(job: JobDefinition): RecordedJob {
  const model = typeof job.model === "string" ? job.model : job.model?.modelName;
  const variables = Object.keys(job.variables ?? {});
  return {
    url: job.url,
    ...(job.act ? { act: job.act } : {}),
    ...(job.extract ? { extract: job.extract } : {}),
    ...(job.schema ? { schema: jsonSchemaOf(job.schema) } : {}),
    ...(model ? { model } : {}),
    ...(variables.length ? { variables } : {}),
  };
}

/** Secrets out, variables' values as their `%NAME%`. */
function scrubber(job: JobDefinition, cookies: string[]): (text: string) => string {
  const redactor = new Redactor([
    ...secretsOf(V3OptionsSchema.parse({ env: "LOCAL", model: job.model })),
    ...urlSecrets(job.url),
    ...cookies,
  ]);
  return (text) => hideVariables(redactor.text(text), job.variables);
}

function scrubValue(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, scrub));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [scrub(k), scrubValue(v, scrub)]),
    );
  }
  return value;
}

/** Each response with its body's file (text bodies scrubbed), the files added to `files`. */
function responseFiles(
  responses: CapturedResponse[],
  files: RecordingFiles,
  scrub: (text: string) => string,
): Recording["responses"] {
  const taken = new Set<string>();
  return responses.map(({ response, body }) => {
    const url = scrub(response.url);
    if (!body) return { ...response, url };
    const type = response.headers["content-type"];
    const file = bodyFileName(url, type, taken);
    files.set(file, isText(type) ? scrub(body.toString("utf8")) : body);
    return { ...response, url, body: file };
  });
}

/** The action cache entries in `dir` (written by the run), by path, scrubbed. */
async function cacheFiles(dir: string, scrub: (text: string) => string) {
  const found = new Map<string, string>();
  const names = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of names) {
    if (!entry.isFile() || !entry.name.endsWith(".json")) continue;
    const path = join(entry.parentPath, entry.name);
    found.set(relative(dir, path), scrub(await readFile(path, "utf8")));
  }
  return found;
}
