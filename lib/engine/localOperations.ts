/**
 * act, extract, observe and agent on this machine's browser: the handlers, given the client's
 * models, settings, history and metrics. (The remote environment will send the same calls to
 * the service instead.) An error act, extract or observe throws is one readable message;
 * Playwright's whole text goes to a debug line.
 */
import type { z } from "zod";
import { Agent } from "../agent/agent.js";
import { resolveAgentConfig } from "../agent/agentConfig.js";
import type { Context } from "../browser/context.js";
import { type ActResult, act } from "../handlers/act.js";
import { extractData, extractPageText } from "../handlers/extract.js";
import type { ExtractCall } from "../handlers/extractCall.js";
import { observe } from "../handlers/observe.js";
import type { History } from "../history.js";
import type { Logger } from "../log.js";
import type { MetricsRecorder } from "../metrics.js";
import { InferenceLog } from "../model/inferenceLog.js";
import { ModelClient } from "../model/modelClient.js";
import type {
  Action,
  ActOptions,
  AgentConfig,
  ObserveOptions,
  ResolvedOptions,
  Variables,
} from "../options.js";
import { surface } from "../readableError.js";
import { hideVariables } from "../variables.js";
import type { Operations } from "./engine.js";

export class LocalOperations implements Operations {
  private readonly models: ModelClient;
  /** Values typed from variables: every later outline shows their %name% instead. */
  private readonly typedVariables: Variables = {};

  constructor(
    private readonly options: ResolvedOptions,
    private readonly logger: Logger,
    private readonly history: History,
    metrics: MetricsRecorder,
  ) {
    this.models = new ModelClient({
      model: options.model,
      llmClient: options.llmClient,
      systemPrompt: options.systemPrompt,
      logger,
      inferenceLog: options.logInferenceToFile ? new InferenceLog(logger.redactor) : undefined,
      onUsage: (operation, usage) => metrics.add(operation, usage),
    });
  }

  extract(context: Context, call: ExtractCall): Promise<unknown> {
    const settings = {
      ...this.snapshotSettings(),
      models: this.models,
      record: (parameters: unknown, result: unknown) =>
        this.history.record("extract", parameters, result),
    };
    if (call.instruction === undefined)
      return this.surfaced("extract", extractPageText(context, call.options, settings));
    return this.surfaced(
      "extract",
      extractData(context, call.instruction, call.schema as z.ZodType, call.options, settings),
    );
  }

  observe(context: Context, instruction?: string, options?: ObserveOptions): Promise<Action[]> {
    return this.surfaced(
      "observe",
      observe(context, instruction, options, {
        ...this.snapshotSettings(),
        models: this.models,
        record: (parameters, result) => this.history.record("observe", parameters, result),
      }),
    );
  }

  act(context: Context, input: string | Action, options?: ActOptions): Promise<ActResult> {
    return this.surfaced(
      "act",
      act(context, input, options, {
        ...this.snapshotSettings(),
        models: this.models,
        selfHeal: this.options.selfHeal,
        onVariablesUsed: (used) => Object.assign(this.typedVariables, used),
        record: (parameters, result) => this.history.record("act", parameters, result),
      }),
    );
  }

  agent(config: AgentConfig | undefined, context: () => Context): Agent<boolean> {
    const client = { model: this.options.model, custom: this.options.llmClient !== undefined };
    return new Agent(resolveAgentConfig(config, this.logger, client), {
      context,
      models: this.models,
      actSettings: { ...this.snapshotSettings(), selfHeal: this.options.selfHeal },
      logger: this.logger,
      rememberVariables: (v) => Object.assign(this.typedVariables, v),
      typedVariables: () => this.typedVariables,
    });
  }

  /**
   * What the caller gets when a call fails: our own errors as they are (a quote of Playwright
   * in them cleaned), a foreign one as a readable ServiceError; the whole text, Playwright's
   * call log included, in a debug line. act has taken the variables' values out already.
   */
  private surfaced<T>(method: string, work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      throw surface(method, error, (detail) =>
        this.logger.debug(method, `${method} failed`, { detail }),
      );
    });
  }

  private snapshotSettings() {
    return {
      domSettleTimeout: this.options.domSettleTimeout,
      outlineTokenBudget: this.options.outlineTokenBudget,
      logger: this.logger,
      mask: (text: string) => hideVariables(text, this.typedVariables),
    };
  }
}
