/**
 * client.agent(config) → an Agent, the same in every environment: its config is checked once
 * (deprecated fields turned into what replaced them, the mode against the model), and each
 * execute() is parsed, its page named by frameId, and handed to the engine as plain data, with
 * what cannot be data (the signal, the safety-check callback, the event listener) beside it.
 * With `stream: true`, execute() answers `{ fullStream, result }` at once.
 */
import { type ClientModel, resolveAgentConfig } from "../agent/agentConfig.js";
import type { AgentEvent, AgentExecuteRequest } from "../api/operations.js";
import type { Context } from "../browser/context.js";
import type { AgentCache } from "../cache/agentCache.js";
import type { Operations } from "../engine/engine.js";
import type { Logger } from "../log.js";
import {
  type AgentConfig,
  type AgentExecuteOptions,
  AgentExecuteOptionsSchema,
  type AgentResult,
  parseInput,
} from "../options.js";
import { modelSecrets } from "../secrets.js";
import { EventChannel } from "./eventChannel.js";
import { frameIdOf } from "./operationPath.js";

export interface AgentStream {
  /** The run's events as they happen, ending with `finish` (or `error`). */
  fullStream: AsyncIterable<AgentEvent>;
  result: Promise<AgentResult>;
}

export type AgentExecuteInput = string | AgentExecuteOptions;

/** What `client.agent(config)` returns. */
export interface Agent<Streaming extends boolean = false> {
  execute(input: AgentExecuteInput): Streaming extends true ? AgentStream : Promise<AgentResult>;
}

export interface AgentHandleDeps {
  operations: Operations;
  ready(method: string): Context;
  logger: Logger;
  /** The client's own model, which the agent uses when its config names none. */
  clientModel: ClientModel;
  /** With `cacheDir`: dom runs replay recorded steps without the model. */
  cache?: AgentCache;
}

export function agentHandle(input: AgentConfig | undefined, deps: AgentHandleDeps): Agent<boolean> {
  const config = resolveAgentConfig(input, deps.logger, deps.clientModel);
  // The agent's own models' credentials are secrets from now on, used or not.
  for (const secret of [...modelSecrets(config.model), ...modelSecrets(config.executionModel)])
    deps.logger.redactor.add(secret);
  // Sent already resolved, so the engine has nothing left to warn about or decide.
  const agentConfig: AgentExecuteRequest["agentConfig"] = {
    mode: config.mode,
    model: config.model,
    executionModel: config.executionModel,
    systemPrompt: config.systemPrompt,
  };

  async function run(
    input: AgentExecuteInput,
    onEvent: (event: AgentEvent) => void,
  ): Promise<AgentResult> {
    const { signal, page, onSafetyCheck, ...executeOptions } = parseInput(
      AgentExecuteOptionsSchema,
      typeof input === "string" ? { instruction: input } : input,
      "agent.execute",
    );
    const context = deps.ready("agent");
    const request: AgentExecuteRequest = {
      agentConfig,
      executeOptions,
      frameId: await frameIdOf(context, page),
    };
    // The page given becomes the active one here too (the engine's side may be another process).
    const given = page ? context.pageOf(page) : undefined;
    if (given) context.setActivePage(given);
    const control = { signal, onSafetyCheck, onEvent };
    if (!deps.cache) return (await deps.operations.agentExecute(request, control)).result;
    const on = page ? context.pageOf(page) : context.activePage();
    return deps.cache.execute(request, on?.url() ?? "", control);
  }

  return {
    execute(input: AgentExecuteInput) {
      if (!config.stream) return run(input, () => {}) as never;
      const channel = new EventChannel<AgentEvent>();
      const result = run(input, (e) => channel.push(e)).then(
        (r) => {
          channel.push({ type: "finish", result: r });
          channel.end();
          return r;
        },
        (error: unknown) => {
          channel.push({
            type: "error",
            error: error instanceof Error ? error.message : String(error),
          });
          channel.end();
          throw error;
        },
      );
      // A caller reading only the stream learns of a failure there: no unhandled rejection.
      result.catch(() => {});
      return { fullStream: channel, result } as never;
    },
  };
}
