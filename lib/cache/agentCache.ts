/**
 * Agent runs without the model, on the operation path (so it works the same on any engine). A
 * miss runs the agent with `shouldCache` and keeps the entry the engine answers: the run's
 * replayable steps and its final message. A hit replays the steps in one engine call (an element
 * is acted on only if it is still the one recorded) and answers the recorded message with no
 * model call. With selfHeal, a changed element is asked for again there in its own words (one
 * act call); any other step that cannot be done, or a heal that fails, hands the run to the
 * agent from where the replay stopped. What healed is written back. Only dom runs are cached:
 * hybrid and cua runs act by screen coordinates, which a changed page does not keep.
 */
import type { AgentExecuteRequest, AgentStep } from "../api/operations.js";
import type { AgentControl, Operations } from "../engine/engine.js";
import { MissingLLMConfigurationError, ServiceError } from "../errors.js";
import type { AgentAction, AgentResult, AgentUsage } from "../options.js";
import type { CacheSettings } from "./actionCache.js";
import { type AgentEntry, newEntry } from "./cacheEntry.js";
import { agentCacheKey, type CacheKey } from "./cacheKey.js";

export class AgentCache {
  constructor(
    private readonly settings: CacheSettings,
    private readonly operations: Operations,
  ) {}

  /** One run of `request`, which starts on the page at `url`. */
  async execute(
    request: AgentExecuteRequest,
    url: string,
    control: AgentControl,
  ): Promise<AgentResult> {
    const { logger, store } = this.settings;
    const mode = request.agentConfig.mode ?? "dom";
    if (mode !== "dom") {
      logger.debug("cache", `agent runs in ${mode} mode act by screen coordinates: not cached`);
      return (await this.operations.agentExecute(request, control)).result;
    }
    const key = agentCacheKey({
      request,
      url,
      clientModel: this.settings.model,
      clientSystemPrompt: this.settings.systemPrompt,
      ignoreParameters: this.settings.ignoreParameters,
    });
    const found = await store.read(key.value);
    if (found?.method !== "agent") return this.record(key, request, control);
    return this.replay(key, found, request, control);
  }

  /**
   * The agent runs with the model, and its steps are written as the entry when it finishes its
   * task. Taking over a replay that stopped, it goes on from the page the replay left, and the
   * entry is the steps replayed before it (healed ones as they are now) and its own.
   */
  private async record(
    key: CacheKey,
    request: AgentExecuteRequest,
    control: AgentControl,
    replayed?: { before: AgentStep[]; actions: AgentAction[]; usage: AgentUsage },
  ): Promise<AgentResult> {
    const { logger, store } = this.settings;
    const answer = await this.withModel(replayed !== undefined, () =>
      this.operations.agentExecute(
        // Taking over, it goes on from the page the replay left active.
        { ...request, frameId: replayed ? undefined : request.frameId, shouldCache: true },
        control,
      ),
    );
    const { result } = answer;
    const recorded = answer.cacheEntry?.entry;
    if (recorded?.method === "agent" && result.success && result.completed) {
      const steps = [...(replayed?.before ?? []), ...recorded.steps];
      await store.write(newEntry(key, { method: "agent", steps, message: result.message }));
      const written = replayed ? "healed agent entry written back" : "agent entry written";
      logger.debug("cache", written, { cacheKey: key.value });
    }
    if (!replayed) return { ...result, metadata: { ...result.metadata, cacheHit: false } };
    return {
      ...result,
      actions: [...replayed.actions, ...result.actions],
      metadata: { ...result.metadata, cacheHit: false, healed: true },
      usage: sumUsage(replayed.usage, result.usage),
    };
  }

  private async replay(
    key: CacheKey,
    entry: AgentEntry,
    request: AgentExecuteRequest,
    control: AgentControl,
  ): Promise<AgentResult> {
    const { logger, store, selfHeal } = this.settings;
    const { variables, toolTimeout } = request.executeOptions;
    const replayed = await this.withModel(true, () =>
      this.operations.agentReplay(
        {
          steps: entry.steps,
          variables,
          frameId: request.frameId,
          stepTimeout: toolTimeout,
          heal: selfHeal,
          model: request.agentConfig.executionModel,
        },
        control.signal,
      ),
    );
    const steps = [...entry.steps];
    for (const { index, step } of replayed.healed) steps[index] = step;
    const healed = replayed.healed.length > 0;
    const { actions, performed, stopped } = replayed;
    // Stopped by the caller (a wait it cut short is no finished step): not the recorded run.
    if (control.signal?.aborted) {
      return ended(actions, replayed.usage, "Stopped by the caller before the task was done.", {
        healed,
        stoppedBy: "aborted",
      });
    }
    if (stopped) {
      const step = steps[performed]!;
      logger.info("cache", "a step of the cached agent run could not be done", {
        cacheKey: key.value,
        step: performed + 1,
        tool: step.tool,
        reason: stopped.message,
      });
      if (!selfHeal) {
        const message = `The cached run stopped at step ${performed + 1} (${step.tool}): ${stopped.message} Nothing more was done: selfHeal is off.`;
        return ended(actions, replayed.usage, message, { healed, stoppedBy: "cache" });
      }
      logger.info("cache", "the agent takes over from the step that changed", {
        cacheKey: key.value,
      });
      const before = steps.slice(0, performed);
      return this.record(key, request, control, { before, actions, usage: replayed.usage });
    }
    if (healed) {
      await store.write(newEntry(key, { method: "agent", steps, message: entry.message }));
      logger.debug("cache", "healed agent entry written back", { cacheKey: key.value });
    } else {
      logger.info("cache", "agent run replayed from the cache, no model call", {
        cacheKey: key.value,
      });
    }
    actions.push({ type: "done", taskCompleted: true, action: entry.message, timeMs: 0 });
    return {
      success: true,
      completed: true,
      message: entry.message,
      actions,
      metadata: {
        cacheHit: !healed,
        healed,
        steps: 0,
        stoppedBy: "done",
        replayedSteps: steps.length,
      },
      usage: replayed.usage,
    };
  }

  /** A heal with no model to ask is the caller's to fix: said plainly, nothing was clicked. */
  private async withModel<T>(healing: boolean, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (healing && error instanceof MissingLLMConfigurationError) {
        throw new ServiceError(
          `agent: a step of the cached run is gone or changed, and there is no model to find it again (${error.message}) Nothing was clicked on the changed page. Configure the model, or record the run again.`,
          { cause: error },
        );
      }
      throw error;
    }
  }
}

/** A replay that ended before the task: what was done, and why it stopped. */
function ended(
  actions: AgentAction[],
  usage: AgentUsage,
  message: string,
  metadata: { healed: boolean; stoppedBy: string },
): AgentResult {
  return {
    success: false,
    completed: false,
    message,
    actions,
    metadata: { cacheHit: false, steps: 0, ...metadata },
    usage,
  };
}

function sumUsage(a: AgentUsage, b: AgentUsage | undefined): AgentUsage {
  if (!b) return a;
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    inference_time_ms: a.inference_time_ms + b.inference_time_ms,
    reasoning_tokens: (a.reasoning_tokens ?? 0) + (b.reasoning_tokens ?? 0),
    cached_input_tokens: (a.cached_input_tokens ?? 0) + (b.cached_input_tokens ?? 0),
  };
}
