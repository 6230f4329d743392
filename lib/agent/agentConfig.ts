/**
 * agent(config): the config checked once, the deprecated fields turned into what replaced
 * them (each with a warning), and the mode chosen.
 */
import { ServiceError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ModelConfiguration } from "../model/config.js";
import { type AgentConfig, AgentConfigSchema, parseInput } from "../options.js";

export interface ResolvedAgentConfig {
  mode: "dom" | "hybrid" | "cua";
  /** The agent's own model; the client's when undefined. */
  model: ModelConfiguration | undefined;
  /** The model of the tools' act/extract calls: the agent's model when not given. */
  executionModel: ModelConfiguration | undefined;
  systemPrompt: string | undefined;
  stream: boolean;
}

export function resolveAgentConfig(
  input: AgentConfig | undefined,
  logger: Logger,
): ResolvedAgentConfig {
  const config = parseInput(AgentConfigSchema.optional(), input, "agent.config") ?? {};
  if (config.cua !== undefined) {
    logger.warn(
      "agent",
      `agentConfig.cua is deprecated; use mode: "cua"${config.mode ? ` (mode "${config.mode}" is given and wins)` : ""}`,
    );
  }
  let model = config.model;
  if (config.provider) {
    logger.warn("agent", 'agentConfig.provider is deprecated; write the model as "provider/model"');
    model = withProvider(model, config.provider);
  }
  const mode = config.mode ?? (config.cua ? "cua" : "dom");
  if (mode !== "dom") {
    throw new ServiceError(
      `agent mode "${mode}" is not available in this version yet; use mode "dom" (the default).`,
    );
  }
  return {
    mode,
    model,
    executionModel: config.executionModel ?? model,
    systemPrompt: config.systemPrompt,
    stream: config.stream ?? false,
  };
}

/** The legacy provider field joined to a bare model name ("gpt-4.1" → "openai/gpt-4.1"). */
function withProvider(
  model: ModelConfiguration | undefined,
  provider: string,
): ModelConfiguration | undefined {
  if (typeof model === "string") return model.includes("/") ? model : `${provider}/${model}`;
  if (model && !model.modelName.includes("/") && !("provider" in model && model.provider)) {
    return { ...model, modelName: `${provider}/${model.modelName}` };
  }
  return model;
}
