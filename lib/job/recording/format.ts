/**
 * A job's recording, as it lies in its folder (`recordings/<name>/`):
 *
 * - `recording.json`: what ran (the job, in plain data), each model call (its purpose, its
 *   instruction, the answer's schema, the model's answer and usage), every response the browser
 *   received (status, the headers a page needs, the file of its body) and the job's answer;
 * - `model/<n>-<purpose>.txt`: each call's prompt exactly as the model was sent it (the
 *   instruction and the page outline), readable and diffable;
 * - `pages/<host>/<path>`: each response body, named after its URL, so a page can be read or
 *   edited like a saved page;
 * - `cache/`: the action cache entries the run wrote (what a deployment replays without a model).
 *
 * Plain data only: this schema is what a recording is, on disk and between processes.
 */
import { z } from "zod";
import { RecordedResponseSchema } from "../../browser/trafficRecorder.js";

export const RECORDING_FORMAT = 1;
export const RECORDING_FILE = "recording.json";

/** The job as recorded: enough to tell whether today's job.config.ts is the same job. */
export const RecordedJobSchema = z.strictObject({
  url: z.string(),
  act: z.string().optional(),
  extract: z.string().optional(),
  /** The extract schema as JSON Schema. */
  schema: z.record(z.string(), z.unknown()).optional(),
  /** `provider/model`: the name only, never a key. */
  model: z.string().optional(),
  /** The `%NAME%` variables the job used, by name (their values are never recorded). */
  variables: z.array(z.string()).optional(),
});
export type RecordedJob = z.infer<typeof RecordedJobSchema>;

export const UsageSchema = z.strictObject({
  promptTokens: z.number(),
  completionTokens: z.number(),
  reasoningTokens: z.number(),
  cachedInputTokens: z.number(),
  inferenceTimeMs: z.number(),
});

export const RecordedModelCallSchema = z.strictObject({
  /** What the call was for: act, observe or extract. */
  operation: z.string(),
  model: z.string(),
  /** The instruction the prompt carried (and the variables it named). */
  instruction: z.string(),
  /** The file holding the whole prompt as sent, under the recording's folder. */
  prompt: z.string(),
  /** SHA-256 of the operation's own instructions to the model (they change with Wayfarer). */
  system: z.string(),
  /** The answer's shape, as JSON Schema. */
  schema: z.unknown(),
  answer: z.unknown(),
  usage: UsageSchema,
});
export type RecordedModelCall = z.infer<typeof RecordedModelCallSchema>;

export const RecordedResponseFileSchema = RecordedResponseSchema.extend({
  /** The body's file under the recording's folder (none for a redirect, or a body not kept). */
  body: z.string().optional(),
});
export type RecordedResponseFile = z.infer<typeof RecordedResponseFileSchema>;

export const RecordingSchema = z.strictObject({
  format: z.literal(RECORDING_FORMAT),
  recordedAt: z.iso.datetime(),
  job: RecordedJobSchema,
  modelCalls: z.array(RecordedModelCallSchema),
  responses: z.array(RecordedResponseFileSchema),
  /** The job's answer: `data` as the deployed function gives it. */
  answer: z.strictObject({ data: z.string() }),
});
export type Recording = z.infer<typeof RecordingSchema>;
