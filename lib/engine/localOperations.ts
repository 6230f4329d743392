/**
 * act, extract, observe and agent runs on this machine's browser: each request is run on the
 * page it names, under its deadline, by its handler, with the client's models and settings.
 * (The remote environment sends the same requests to the service instead.) An error is one
 * readable message; Playwright's whole text goes to a debug line.
 */

import { type AgentDeps, runAgent } from "../agent/agent.js";
import { resolveAgentConfig } from "../agent/agentConfig.js";
import { replayAgentSteps } from "../agent/replay.js";
import { zodSchemaOf } from "../api/jsonSchema.js";
import type {
  ActRequest,
  ActResult,
  AgentExecuteRequest,
  AgentReplayRequest,
  AgentReplayResult,
  ElementIdentity,
  ExtractRequest,
  IdentifyRequest,
  ObserveRequest,
} from "../api/operations.js";
import type { Context } from "../browser/context.js";
import { identityOfElement } from "../browser/elementIdentity.js";
import type { Page } from "../browser/page.js";
import { keyModelOf } from "../cache/actionCache.js";
import { newEntry } from "../cache/cacheEntry.js";
import { agentCacheKey, ignoredParameters } from "../cache/cacheKey.js";
import { act } from "../handlers/act.js";
import { extractData, extractPageText } from "../handlers/extract.js";
import { observe } from "../handlers/observe.js";
import { pageById } from "../handlers/pageSnapshot.js";
import type { Logger } from "../log.js";
import type { MetricsRecorder } from "../metrics.js";
import type { Action, ResolvedOptions } from "../options.js";
import { surface } from "../readableError.js";
import { DEFAULT_TIMEOUT_MS, type Deadline, withTimeout } from "../timeout.js";
import type { AgentControl, AgentExecuteAnswer, OperationControl, Operations } from "./engine.js";
import { agentDepsFor, type ToolDepsExtras } from "./toolDeps.js";

export class LocalOperations implements Operations {
  /** The models, the snapshot settings and the values typed so far, shared with agent runs. */
  private readonly deps: AgentDeps;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly logger: Logger,
    metrics: MetricsRecorder,
    /** The browser's pages, once init() has opened them. */
    context: () => Context,
    /** A service's budget and rules for model calls; a job's recording or replay. */
    extras: ToolDepsExtras = {},
  ) {
    this.deps = agentDepsFor(options, logger, metrics, context, extras);
  }

  act(request: ActRequest, control: OperationControl = {}): Promise<ActResult> {
    const options = request.options ?? {};
    return this.run(
      "act",
      request.frameId,
      options.timeout,
      "the action",
      (context, page, d) =>
        act(context, page, request.input, options, this.actSettings(), d, {
          identify: request.identify,
          expect: request.expect,
        }),
      control.signal,
    );
  }

  observe(request: ObserveRequest, control: OperationControl = {}): Promise<Action[]> {
    const options = request.options ?? {};
    return this.run(
      "observe",
      request.frameId,
      options.timeout,
      "the elements",
      (_, page, d) => observe(page, request.instruction, options, this.settings(), d),
      control.signal,
    );
  }

  extract(request: ExtractRequest, control: OperationControl = {}): Promise<unknown> {
    const options = request.options ?? {};
    const { instruction, schema } = request;
    const signal = control.signal;
    if (instruction === undefined) {
      return this.run(
        "extract",
        request.frameId,
        options.timeout,
        "the page outline",
        (_, p, d) => extractPageText(p, options, this.settings(), d),
        signal,
      );
    }
    const wanted = schema === undefined ? undefined : zodSchemaOf(schema);
    return this.run(
      "extract",
      request.frameId,
      options.timeout,
      "the extraction",
      (_, p, d) => extractData(p, instruction, wanted, options, this.settings(), d),
      signal,
    );
  }

  identify(request: IdentifyRequest): Promise<(ElementIdentity | null)[]> {
    return this.run("identify", request.frameId, request.timeout, "the elements", (_, page, d) =>
      Promise.all(
        request.selectors.map(async (selector) => {
          const timeout = Math.max(1, Math.floor(d.remaining() / 2));
          const element = await page
            .deepLocator(selector)
            .elementHandle({ timeout })
            .catch(() => undefined);
          if (!element) return null;
          try {
            return await identityOfElement(element);
          } catch {
            return null;
          } finally {
            await element.dispose().catch(() => {});
          }
        }),
      ),
    );
  }

  async agentExecute(
    request: AgentExecuteRequest,
    control: AgentControl,
  ): Promise<AgentExecuteAnswer> {
    const client = { model: this.options.model, custom: this.options.llmClient !== undefined };
    const config = resolveAgentConfig(request.agentConfig, this.logger, client);
    const { result, startUrl, steps } = await runAgent(config, this.agentDeps(), request, control);
    if (!steps) return { result };
    const key = agentCacheKey({
      request,
      url: startUrl,
      clientModel: keyModelOf(this.options),
      clientSystemPrompt: this.options.systemPrompt,
      ignoreParameters: ignoredParameters(),
    });
    const entry = newEntry(key, { method: "agent", steps, message: result.message });
    return { result, cacheEntry: { cacheKey: key.value, entry } };
  }

  agentReplay(request: AgentReplayRequest, signal?: AbortSignal): Promise<AgentReplayResult> {
    // Each step keeps its own time (stepTimeout); the whole is bounded by their sum.
    const bound = (request.stepTimeout ?? DEFAULT_TIMEOUT_MS) * (request.steps.length + 1);
    return this.run("agentReplay", request.frameId, bound, "the cached run", (_, __, deadline) =>
      // Past the bound, the steps stop too: nothing goes on behind the caller's error.
      replayAgentSteps(
        this.agentDeps(),
        request,
        signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal,
      ),
    );
  }

  private agentDeps(): AgentDeps {
    return this.deps;
  }

  /**
   * The one way a call runs here: its page, its deadline, its handler. What the caller gets when
   * it fails: our own errors as they are (a quote of Playwright in them cleaned), a foreign one
   * as a readable ServiceError, both redacted; the whole text, Playwright's call log included,
   * in a debug line.
   */
  private async run<T>(
    method: string,
    frameId: string | undefined,
    timeout: number | undefined,
    waitingFor: string,
    handler: (context: Context, page: Page, deadline: Deadline) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      const context = this.deps.context();
      const page = await pageById(context, frameId);
      return await withTimeout(
        method,
        timeout ?? DEFAULT_TIMEOUT_MS,
        waitingFor,
        (deadline) => handler(context, page, deadline),
        { signal },
      );
    } catch (error) {
      throw this.logger.redactor.error(
        surface(method, error, (detail) =>
          this.logger.debug(method, `${method} failed`, { detail }),
        ),
      );
    }
  }

  private settings() {
    return { ...this.deps.actSettings, models: this.deps.models };
  }

  private actSettings() {
    return { ...this.settings(), onVariablesUsed: this.deps.rememberVariables };
  }
}
