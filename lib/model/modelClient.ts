/**
 * Every model call of the project goes through here: the model is chosen (per-call model, else
 * `llmClient`, else the client's model), the system prompt joined, the answer parsed by a zod schema,
 * rate limits and server errors retried with backoff inside the call's deadline, usage counted,
 * secrets kept out of errors, logs and inference files.
 */
import {
  APICallError,
  generateText,
  type LanguageModel,
  type ModelMessage,
  NoObjectGeneratedError,
  Output,
  type Schema,
  type Tool,
  tool,
  zodSchema,
} from "ai";
import type { z } from "zod";
import { jsonSchemaOf } from "../api/jsonSchema.js";
import { MissingLLMConfigurationError, TokenCapError, UnsupportedModelError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Usage } from "../metrics.js";
import { sleep } from "../timeout.js";
import { estimateTokens } from "../tokens.js";
import { inheritCredentials, type ModelConfiguration } from "./config.js";
import type { InferenceLog } from "./inferenceLog.js";
import type { ModelAccess } from "./modelAccess.js";
import { toModelError } from "./modelErrors.js";
import type { ModelTap, TappedCall } from "./modelTap.js";
import { computerToolFor, type ResolvedModel, resolveModel } from "./providers.js";
import { retryDelay } from "./retries.js";
import { toolInputSchema } from "./toolSchema.js";

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
  /** Told of this call's usage too (an agent run adds up its own). */
  onUsage?: (usage: Usage) => void;
}

export type { ModelMessage };

/** A tool the model may call: what it is for and its input, as a zod schema. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: z.ZodType;
}

/** One step of a conversation in which the model calls the tools offered, or answers in words. */
export interface ConverseCall {
  operation: Operation;
  /** Offer the provider's computer-use tool, named "computer", for a screen of this size. */
  computer?: { width: number; height: number };
  system: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  model?: ModelConfiguration;
  signal: AbortSignal;
  onUsage?: (usage: Usage) => void;
}

export interface ToolCallRequest {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Why the call cannot run (unknown tool, input not matching its schema). */
  invalid?: string;
}

export interface ConverseAnswer {
  text: string;
  /** Why the model stopped: "stop", "tool-calls", "length", "content-filter", … */
  finishReason: string;
  toolCalls: ToolCallRequest[];
  /** The assistant's turn, to append to the conversation. */
  messages: ModelMessage[];
  usage: Usage;
  model: string;
}

/** What handlers and the agent call: a ModelClient, or a view of one (see scoped()). */
export interface Models {
  generate<T>(call: ModelCall<T>): Promise<ModelAnswer<T>>;
  converse(call: ConverseCall): Promise<ConverseAnswer>;
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
  /** A service's rules for reaching providers: whose keys, which fetch, what errors say. */
  access?: ModelAccess;
  /** Told of every answered call's usage: the client files it under the operation in metrics. */
  onUsage?: (operation: Operation, usage: Usage) => void;
  /** The most tokens the client may spend: a call that would go past it is not made. */
  tokenCap?: number;
  /** Someone else's budget (the service's operator's): asked before each call, told after. */
  spendGuard?: SpendGuard;
  /** Sees act, observe and extract calls: a job's recording or its replay. */
  tap?: ModelTap;
}

/**
 * Meters model calls against a budget kept outside the client (a service project's tokens on
 * the operator's key). Given the configuration that answers each call, so it can tell whose key
 * pays.
 */
export interface SpendGuard {
  /** Before a call: throws to refuse it (the call is not made). */
  before(config: ModelConfiguration | undefined): void | Promise<void>;
  /** A call was paid for, with this usage. Not awaited: the guard keeps its own errors. */
  spent(config: ModelConfiguration | undefined, usage: Usage): void;
}

/**
 * The prompt's estimate is at most this far under what the provider bills: 0.96× o200k at the
 * lowest on the corpus' outlines, 0.84× on a page of NATO call signs repeated (rare words).
 */
const CAP_CUSHION = 1.25;

export class ModelClient implements Models {
  private readonly resolved = new Map<string, ResolvedModel>();
  /** Prompt and completion tokens of every call so far, for the cap. */
  private spent = 0;

  constructor(private readonly settings: ModelClientSettings) {}

  /**
   * The same client, with every call filed under `operation` (an agent's tools count under
   * agent) and its usage also told to `onUsage`.
   */
  scoped(scope: { operation: Operation; onUsage?: (usage: Usage) => void }): Models {
    const onUsage = (own?: (usage: Usage) => void) => (usage: Usage) => {
      own?.(usage);
      scope.onUsage?.(usage);
    };
    return {
      generate: (call) =>
        this.generate({ ...call, operation: scope.operation, onUsage: onUsage(call.onUsage) }),
      converse: (call) =>
        this.converse({ ...call, operation: scope.operation, onUsage: onUsage(call.onUsage) }),
    };
  }

  /**
   * Refuses a call that would take the client past its cap: what was spent, plus the prompt's
   * estimate (lib/tokens.ts; an image counts as nothing) with CAP_CUSHION, since a cap is a
   * promise about money and the estimate runs under o200k on text of rare words.
   */
  private checkCap(promptText: string): void {
    const cap = this.settings.tokenCap;
    if (cap === undefined) return;
    if (this.spent + estimateTokens(promptText) * CAP_CUSHION > cap) {
      throw new TokenCapError(this.spent, cap);
    }
  }

  /** One step of a tool-calling conversation: the model's text and the tools it calls. */
  async converse(call: ConverseCall): Promise<ConverseAnswer> {
    this.checkCap(JSON.stringify(withoutImages(call.messages)) + (call.system ?? ""));
    const { model, label, config } = this.choose(call.model);
    await this.settings.spendGuard?.before(config);
    const system = [call.system, this.settings.systemPrompt].filter(Boolean).join("\n\n");
    const tools: Record<string, Tool> = Object.fromEntries(
      call.tools.map((t) => [
        t.name,
        tool({ description: t.description, inputSchema: toolInputSchema(t.inputSchema) }),
      ]),
    );
    if (call.computer) {
      // The provider's own computer-use tool, for the screen the screenshots show.
      const computer = config && (await computerToolFor(config, call.computer));
      if (!computer) {
        throw new UnsupportedModelError(label, ["dom", "hybrid"], {
          operation: 'agent mode "cua"',
          supportedLabel: "Modes it can run",
        });
      }
      tools.computer = computer;
    }
    const started = Date.now();
    const record = {
      operation: call.operation,
      model: label,
      request: {
        system,
        messages: withoutImages(call.messages),
        tools: call.tools.map((t) => t.name),
      },
    };
    try {
      const result = await this.withRetries(call, label, () =>
        generateText({
          model,
          system,
          messages: call.messages,
          tools,
          providerOptions: call.computer ? { wayfarer: { display: call.computer } } : undefined,
          // "auto": an answer in words is the model's way to finish (a forced choice throws
          // instead, and the tokens of that answer would go uncounted).
          toolChoice: "auto",
          maxRetries: 0,
          abortSignal: call.signal,
        }),
      );
      const usage = usageOf(result.usage, started);
      const toolCalls = result.toolCalls.map(
        (c): ToolCallRequest => ({
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          input: c.input,
          invalid:
            "invalid" in c && c.invalid
              ? this.settings.logger.redactor.text(
                  c.error instanceof Error ? c.error.message : String(c.error),
                )
              : undefined,
        }),
      );
      this.reportUsage(call, usage, config);
      await this.logInference({ ...record, response: { text: result.text, toolCalls }, usage });
      this.settings.logger.debug("model", `${call.operation}: ${label} answered`, { ...usage });
      return {
        text: result.text,
        finishReason: result.finishReason,
        toolCalls,
        // Only the assistant's turn: the SDK also answers calls it could not parse with its
        // own tool results, and the caller answers every call itself.
        messages: result.response.messages.filter((m) => m.role === "assistant"),
        usage,
        model: label,
      };
    } catch (error) {
      const failure = toModelError(
        { ...call, schema: undefined },
        error,
        this.settings.logger.redactor,
        this.settings.access?.quietErrors,
      );
      await this.logInference({ ...record, error: failure.message });
      throw failure;
    }
  }

  private reportUsage(
    call: { operation: Operation; onUsage?: (usage: Usage) => void },
    usage: Usage,
    config: ModelConfiguration | undefined,
  ) {
    this.spent += usage.promptTokens + usage.completionTokens;
    this.settings.spendGuard?.spent(config, usage);
    this.settings.onUsage?.(call.operation, usage);
    call.onUsage?.(usage);
  }

  async generate<T>(call: ModelCall<T>): Promise<ModelAnswer<T>> {
    this.checkCap(call.prompt + (call.system ?? ""));
    const system = [call.system, this.settings.systemPrompt].filter(Boolean).join("\n\n");
    const tapped = this.settings.tap && this.tapped(call, system);
    const replayed = tapped && this.settings.tap?.answer?.(tapped);
    if (tapped && replayed) {
      this.reportUsage(call, replayed.usage, undefined);
      return { value: replayed.value as T, usage: replayed.usage, model: tapped.model };
    }
    const { model, label, config } = this.choose(call.model);
    await this.settings.spendGuard?.before(config);
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
          output: Output.object({ schema: answerSchema(call.schema) }),
          maxRetries: 0,
          abortSignal: call.signal,
        }),
      );
      const usage = usageOf(result.usage, started);
      const value = result.output as T;
      this.reportUsage(call, usage, config);
      if (tapped) this.settings.tap?.answered?.(tapped, value, usage);
      await this.logInference({ ...record, response: value, usage });
      this.settings.logger.debug("model", `${call.operation}: ${label} answered`, { ...usage });
      return { value, usage, model: label };
    } catch (error) {
      // An answer of the wrong shape was still paid for: its tokens count.
      const spent = NoObjectGeneratedError.isInstance(error) ? error.usage : undefined;
      if (spent) this.reportUsage(call, usageOf(spent, started), config);
      const failure = toModelError(
        call,
        error,
        this.settings.logger.redactor,
        this.settings.access?.quietErrors,
      );
      await this.logInference({ ...record, error: failure.message });
      throw failure;
    }
  }

  /** The call as a tap sees it; the model named without resolving it (a replay needs no key). */
  private tapped(call: ModelCall<unknown>, system: string): TappedCall {
    const configured = inheritCredentials(call.model, this.settings.model) ?? this.settings.model;
    const { llmClient } = this.settings;
    const model =
      call.model === undefined && llmClient
        ? labelOf(llmClient)
        : typeof configured === "string"
          ? configured
          : (configured?.modelName ?? "");
    return {
      operation: call.operation,
      system,
      prompt: call.prompt,
      schema: jsonSchemaOf(call.schema),
      model,
    };
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
    /** The configuration it came from; undefined for an llmClient. */
    config?: ModelConfiguration;
  } {
    const { llmClient } = this.settings;
    if (override === undefined && llmClient) return { model: llmClient, label: labelOf(llmClient) };
    const configured = inheritCredentials(override, this.settings.model) ?? this.settings.model;
    if (configured === undefined) throw new MissingLLMConfigurationError();
    const key = JSON.stringify(configured);
    let resolved = this.resolved.get(key);
    if (!resolved) {
      const { access } = this.settings;
      resolved = access
        ? resolveModel(configured, access.envFor(configured), access.fetchFor(configured))
        : resolveModel(configured, this.settings.env);
      for (const secret of resolved.secrets) this.settings.logger.redactor.add(secret);
      if (resolved.deprecation) this.settings.logger.warn("model", resolved.deprecation);
      this.resolved.set(key, resolved);
    }
    return { model: resolved.model, label: resolved.label, config: configured };
  }

  private async withRetries<R>(
    call: { operation: Operation; signal: AbortSignal },
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
}

interface SdkUsage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  outputTokenDetails?: { reasoningTokens?: number | undefined };
  inputTokenDetails?: { cacheReadTokens?: number | undefined };
}

function usageOf(usage: SdkUsage, started: number): Usage {
  return {
    promptTokens: usage.inputTokens ?? 0,
    completionTokens: usage.outputTokens ?? 0,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? 0,
    cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
    inferenceTimeMs: Date.now() - started,
  };
}

/** The conversation as the inference log keeps it: screenshots counted, not stored. */
function withoutImages(messages: ModelMessage[]): unknown {
  return JSON.parse(
    JSON.stringify(messages, (key, value) =>
      (key === "data" || key === "image") && typeof value === "string" && value.length > 200
        ? `<${value.length} characters of image data>`
        : value,
    ),
  );
}

function labelOf(model: LanguageModel): string {
  return typeof model === "string" ? model : `${model.provider}/${model.modelId}`;
}

/**
 * The SDK's form of an answer's zod schema, made once per schema: given the zod schema itself,
 * it converts it to JSON Schema again on every call (about 0.5–1 ms for observe's).
 */
const answerSchemas = new WeakMap<object, Schema<unknown>>();
function answerSchema<T>(schema: z.ZodType<T>): Schema<T> {
  let known = answerSchemas.get(schema);
  if (!known) {
    known = zodSchema(schema) as Schema<unknown>;
    answerSchemas.set(schema, known);
  }
  return known as Schema<T>;
}
