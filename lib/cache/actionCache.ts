/**
 * act without the model, on the operation path (so it works the same on any engine). A miss
 * runs the call with `identify` and records the performed Action with its element's identity;
 * a hit replays the Action with `expect`, and the engine acts only if the element is still the
 * one recorded. A missing or different element heals through the model (when selfHeal allows),
 * and the healed step is written back; nothing is clicked on a mismatch.
 */
import type {
  ActRequest,
  ActResult,
  ElementIdentity,
  IdentifyRequest,
  ObserveRequest,
} from "../api/operations.js";
import { sameIdentity } from "../browser/elementIdentity.js";
import { MissingLLMConfigurationError, ServiceError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Action, ResolvedOptions } from "../options.js";
import { type ActionEntry, type CachedStep, newEntry } from "./cacheEntry.js";
import { type CacheKey, cacheKey, ignoredParameters, type KeyModel } from "./cacheKey.js";
import { CacheStore } from "./cacheStore.js";

/** What the act, observe and agent caches of one client share. */
export interface CacheSettings {
  store: CacheStore;
  logger: Logger;
  selfHeal: boolean;
  /** The client's model and system prompt: part of every key. */
  model: KeyModel;
  systemPrompt: string | undefined;
  /** More query parameters to leave out of keys (WAYFARER_CACHE_IGNORE_PARAMS). */
  ignoreParameters: readonly string[];
}

/** How long a cached observe waits for each recorded element before it calls it gone. */
const IDENTIFY_TIMEOUT_MS = 4_000;

/** An act answer, and whether it came from the cache. */
export interface CachedAct {
  result: ActResult;
  cacheHit: boolean;
}

export class ActionCache {
  constructor(private readonly settings: CacheSettings) {}

  async act(
    request: ActRequest,
    url: string,
    run: (request: ActRequest) => Promise<ActResult>,
  ): Promise<CachedAct> {
    const instruction = request.input;
    // An Action is already what a cache would replay.
    if (typeof instruction !== "string") return { result: await run(request), cacheHit: false };
    const { logger } = this.settings;
    const key = cacheKey({
      method: "act",
      instruction,
      url,
      variables: request.options?.variables,
      model: request.options?.model ?? this.settings.model,
      systemPrompt: this.settings.systemPrompt,
      ignoreParameters: this.settings.ignoreParameters,
    });
    const entry = await this.read(key);
    if (entry) {
      const replayed = await this.replay(entry, request, run);
      if (replayed.done) {
        logger.info("cache", "act replayed from the cache, no model call", { cacheKey: key.value });
        return { result: replayed.result, cacheHit: true };
      }
      logger.info("cache", "the cached element changed; finding it again", {
        cacheKey: key.value,
        reason: replayed.result.message,
      });
      if (!this.settings.selfHeal) return { result: plain(replayed.result), cacheHit: false };
    }
    let result: ActResult;
    try {
      result = await run({ ...request, identify: true });
    } catch (error) {
      if (entry && error instanceof MissingLLMConfigurationError) {
        throw new ServiceError(
          `act("${instruction}"): the cached element is gone or changed, and there is no model to find it again (${error.message}) Nothing was clicked. Configure the model, or record the entry again.`,
          { cause: error },
        );
      }
      throw error;
    }
    const performed = result.actions.at(-1);

    const identity = result.identities?.at(-1);
    if (result.success && performed && identity) {
      await this.write(key, "act", [{ action: performed, identity }]);
      logger.debug("cache", entry ? "healed entry written back" : "entry written", {
        cacheKey: key.value,
      });
    }
    return { result: plain(result), cacheHit: false };
  }

  /**
   * observe with an instruction: a hit answers the recorded Actions when every element is still
   * the one recorded (asked with `identify`, nothing touched); otherwise the model is asked
   * again and the entry rewritten. An observe without an instruction asks no model: not cached.
   */
  async observe(
    request: ObserveRequest,
    url: string,
    run: (request: ObserveRequest) => Promise<Action[]>,
    identify: (request: IdentifyRequest) => Promise<(ElementIdentity | null)[]>,
  ): Promise<{ result: Action[]; cacheHit: boolean }> {
    const { instruction } = request;
    if (!instruction) return { result: await run(request), cacheHit: false };
    const { logger } = this.settings;
    const { selector, ignoreSelectors } = request.options ?? {};
    const key = cacheKey({
      method: "observe",
      instruction,
      url,
      variables: request.options?.variables,
      options: { selector, ignoreSelectors },
      model: request.options?.model ?? this.settings.model,
      systemPrompt: this.settings.systemPrompt,
      ignoreParameters: this.settings.ignoreParameters,
    });
    const ask = (selectors: string[]) =>
      identify({ selectors, frameId: request.frameId, timeout: IDENTIFY_TIMEOUT_MS });
    const entry = await this.read(key);
    if (entry) {
      const seen = await ask(entry.steps.map((s) => s.action.selector));
      const same = entry.steps.every((step, i) => {
        const now = seen[i];
        return step.identity && now && sameIdentity(now, step.identity);
      });
      if (same) {
        logger.info("cache", "observe answered from the cache, no model call", {
          cacheKey: key.value,
        });
        return { result: entry.steps.map((s) => s.action), cacheHit: true };
      }
      logger.info("cache", "the cached elements changed; observing again", { cacheKey: key.value });
    }
    const actions = await run(request);
    if (actions.length) {
      const identities = await ask(actions.map((a) => a.selector));
      if (identities.every((i) => i !== null)) {
        await this.write(
          key,
          "observe",
          actions.map((action, i) => ({ action, identity: identities[i]! })),
        );
      }
    }
    return { result: actions, cacheHit: false };
  }

  private async read(key: CacheKey): Promise<ActionEntry | undefined> {
    const entry = await this.settings.store.read(key.value);
    return entry?.method === "agent" ? undefined : entry;
  }

  private write(key: CacheKey, method: ActionEntry["method"], steps: CachedStep[]): Promise<void> {
    return this.settings.store.write(newEntry(key, { method, steps }));
  }

  /** Each recorded step, acted on only if its element is still the one recorded. */
  private async replay(
    entry: ActionEntry,
    request: ActRequest,
    run: (request: ActRequest) => Promise<ActResult>,
  ): Promise<{ done: boolean; result: ActResult }> {
    let last: ActResult | undefined;
    for (const step of entry.steps) {
      last = await run({
        input: step.action,
        options: request.options,
        frameId: request.frameId,
        expect: step.identity,
      });
      if (last.mismatch) return { done: false, result: last };
      if (!last.success) return { done: true, result: plain(last) };
    }
    if (!last) return { done: false, result: emptyEntry() };
    return { done: true, result: plain(last) };
  }
}

/** The answer as the caller knows it: the cache's own fields left out. */
function plain(result: ActResult): ActResult {
  const { identities: _identities, mismatch: _mismatch, ...rest } = result;
  return rest;
}

function emptyEntry(): ActResult {
  return {
    success: false,
    message: "the cached entry has no steps",
    actionDescription: "",
    actions: [],
  };
}

/** The client's cache settings: set when `cacheDir` is given, undefined otherwise. */
export function cacheSettingsFor(
  options: ResolvedOptions,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): CacheSettings | undefined {
  if (!options.cacheDir) return undefined;
  return {
    store: new CacheStore(options.cacheDir, logger),
    logger,
    selfHeal: options.selfHeal,
    model: keyModelOf(options),
    systemPrompt: options.systemPrompt,
    ignoreParameters: ignoredParameters(env),
  };
}

/** The model calls use when they name none, as keys see it. */
export function keyModelOf(options: ResolvedOptions): KeyModel {
  const { llmClient } = options;
  return llmClient ? { modelId: llmClient.modelId, provider: llmClient.provider } : options.model;
}
