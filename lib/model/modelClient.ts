/**
 * Every model call of the project goes through here: the model is chosen (per-call model, else
 * `llmClient`, else the client's model), the system prompt joined, the answer parsed by a zod schema,
 * rate limits and server errors retried with backoff inside the call's deadline, usage counted,
 * secrets kept out of errors, logs and inference files.
 */
import { APICallError, generateText, type LanguageModel, NoObjectGeneratedError, Output } from "ai";
import type { z } from "zod";
import {
  LLMResponseError,
  MissingLLMConfigurationError,
  ServiceError,
  ZodSchemaValidationError,
} from "../errors.js";
import type { Logger } from "../log.js";
import type { Usage } from "../metrics.js";
import { sleep } from "../timeout.js";
import type { ModelConfiguration } from "./config.js";
import type { InferenceLog } from "./inferenceLog.js";
import { type ResolvedModel, resolveModel } from "./providers.js";

export type Operation = "act" | "extract" | "observe" | "agent";

export interface ModelCall<T> {
  operation: Operation;
  /** The operation's own instructions; the client's `systemPrompt` is joined after them. */
  system: string;
  prompt: string;
  /** PNG or JPEG images sent with the prompt (a screenshot). */
  images?: { data: Uint8Array; mediaType: string }[];
  schema: z.ZodType<T>;
  /** A per-call model, overriding the client's. */
  model?: ModelConfiguration;
  /** Ends the call (and its retries): the caller's deadline. */
  signal: AbortSignal;
}

export interface ModelAnswer<T> {
  value: T;
  usage: Usage;
  model: string;
}

export interface ModelClientSettings {
  model?: ModelConfiguration;
  llmClient?: LanguageModel;
  systemPrompt?: string;
  logger: Logger;
  inferenceLog?: InferenceLog;
  env?: Record<string, string | undefined>;
  /** Told of every answered call's usage: the client files it under the operation in metrics. */
  onUsage?: (operation: Operation, usage: Usage) => void;
}

/** Waits before the retries of a rate-limited or failed call; the last one's error is raised. */
export const RETRY_DELAYS_MS = [250, 1_000, 3_000];

export class ModelClient {
  private readonly resolved = new Map<string, ResolvedModel>();

  constructor(private readonly settings: ModelClientSettings) {}

  async generate<T>(call: ModelCall<T>): Promise<ModelAnswer<T>> {
    const { model, label } = this.choose(call.model);
    const system = [call.system, this.settings.systemPrompt].filter(Boolean).join("\n\n");
    const content = [
      { type: "text" as const, text: call.prompt },
      ...(call.images ?? []).map((i) => ({
        type: "image" as const,
        image: i.data,
        mediaType: i.mediaType,
      })),
    ];
    const started = Date.now();
    const record = {
      operation: call.operation,
      model: label,
      request: { system, prompt: call.prompt, images: call.images?.length ?? 0 },
    };
    try {
      const result = await this.withRetries(call, label, () =>
        generateText({
          model,
          system,
          messages: [{ role: "user", content }],
          output: Output.object({ schema: call.schema }),
          maxRetries: 0,
          abortSignal: call.signal,
        }),
      );
      const usage: Usage = {
        promptTokens: result.usage.inputTokens ?? 0,
        completionTokens: result.usage.outputTokens ?? 0,
        reasoningTokens: result.usage.outputTokenDetails?.reasoningTokens ?? 0,
        cachedInputTokens: result.usage.inputTokenDetails?.cacheReadTokens ?? 0,
        inferenceTimeMs: Date.now() - started,
      };
      const value = result.output as T;
      this.settings.onUsage?.(call.operation, usage);
      await this.logInference({ ...record, response: value, usage });
      this.settings.logger.debug("model", `${call.operation}: ${label} answered`, { ...usage });
      return { value, usage, model: label };
    } catch (error) {
      // An answer of the wrong shape was still paid for: its tokens count.
      const spent = NoObjectGeneratedError.isInstance(error) ? error.usage : undefined;
      if (spent) {
        this.settings.onUsage?.(call.operation, {
          promptTokens: spent.inputTokens ?? 0,
          completionTokens: spent.outputTokens ?? 0,
          reasoningTokens: spent.outputTokenDetails?.reasoningTokens ?? 0,
          cachedInputTokens: spent.inputTokenDetails?.cacheReadTokens ?? 0,
          inferenceTimeMs: Date.now() - started,
        });
      }
      const failure = this.explain(call, error);
      await this.logInference({ ...record, error: failure.message });
      throw failure;
    }
  }

  /** A failed write (a read-only filesystem) must not turn an answered call into a failure. */
  private async logInference(record: Parameters<InferenceLog["write"]>[0]): Promise<void> {
    try {
      await this.settings.inferenceLog?.write(record);
    } catch (error) {
      this.settings.logger.warn("model", "could not write the inference log", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /**
   * The model for a call: its own; else `llmClient`, which replaces the model client the
   * client's `model` would make; else that one.
   */
  private choose(override: ModelConfiguration | undefined): {
    model: LanguageModel;
    label: string;
  } {
    const { llmClient } = this.settings;
    if (override === undefined && llmClient) return { model: llmClient, label: labelOf(llmClient) };
    const configured = override ?? this.settings.model;
    if (configured === undefined) throw new MissingLLMConfigurationError();
    const key = JSON.stringify(configured);
    let resolved = this.resolved.get(key);
    if (!resolved) {
      resolved = resolveModel(configured, this.settings.env);
      for (const secret of resolved.secrets) this.settings.logger.redactor.add(secret);
      this.resolved.set(key, resolved);
    }
    return { model: resolved.model, label: resolved.label };
  }

  private async withRetries<R>(
    call: ModelCall<unknown>,
    label: string,
    run: () => Promise<R>,
  ): Promise<R> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        const delay = retryDelay(error, attempt);
        if (delay === undefined || call.signal.aborted) throw error;
        this.settings.logger.info("model", `${call.operation}: ${label} asked to retry; waiting`, {
          status: APICallError.isInstance(error) ? error.statusCode : undefined,
          delayMs: delay,
          attempt: attempt + 1,
        });
        await sleep(delay, call.signal);
        if (call.signal.aborted) throw error;
      }
    }
  }

  /** The reference's error for a failed call, without anything secret in it. */
  private explain(call: ModelCall<unknown>, error: unknown): Error {
    const { operation } = call;
    const redactor = this.settings.logger.redactor;
    if (error instanceof ServiceError) return redactor.error(error);
    if (NoObjectGeneratedError.isInstance(error)) {
      // JSON of the wrong shape is a schema mismatch, with its issues; anything else is not an
      // answer at all.
      const received = parseJson(error.text);
      const checked = received === undefined ? undefined : call.schema.safeParse(received);
      if (checked && !checked.success) {
        return new ZodSchemaValidationError(
          redactor.value(received),
          checked.error.issues.map((i) => ({ path: i.path, message: i.message })),
        );
      }
    }
    if (APICallError.isInstance(error)) {
      const detail = redactor.text(providerMessage(error));
      return new LLMResponseError(operation, detail, { status: error.statusCode });
    }
    if (NoObjectGeneratedError.isInstance(error)) {
      return new LLMResponseError(
        operation,
        redactor.text(`the answer did not match the expected shape: ${error.message}`),
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return new LLMResponseError(operation, redactor.text(message));
  }
}

/** A provider asking for a longer wait than this is not retried: the call fails at once. */
export const MAX_RETRY_AFTER_MS = 10_000;

/** How long to wait before trying again, or undefined when the error is final. */
export function retryDelay(error: unknown, attempt: number, now = Date.now()): number | undefined {
  if (!APICallError.isInstance(error) || !error.isRetryable) return undefined;
  const planned = RETRY_DELAYS_MS[attempt];
  if (planned === undefined) return undefined;
  const asked = askedWait(error.responseHeaders, now);
  if (asked === undefined) return planned;
  return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date; undefined when absent. */
function askedWait(headers: Record<string, string> | undefined, now: number): number | undefined {
  const ms = headers?.["retry-after-ms"];
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) {
    return Math.max(0, Number(ms));
  }
  const after = headers?.["retry-after"];
  if (after === undefined || after.trim() === "") return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The provider's own words about the failure, from its error body when there is one. */
function providerMessage(error: APICallError): string {
  const body = error.responseBody;
  if (body) {
    try {
      const parsed = JSON.parse(body) as {
        error?: { message?: string } | string;
        message?: string;
      };
      const message =
        typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
      if (message) return message;
    } catch {
      // Not JSON: the text itself says it.
      return body.slice(0, 500);
    }
  }
  return error.message;
}

function labelOf(model: LanguageModel): string {
  return typeof model === "string" ? model : `${model.provider}/${model.modelId}`;
}
