/**
 * agent(config): the config checked once, the deprecated fields turned into what replaced
 * them (each with a warning), and the mode chosen.
 */
import { UnsupportedModelError } from "../errors.js";
import type { Logger } from "../log.js";
import { type AgentMode, agentModesOf, labelOfConfig } from "../model/capabilities.js";
import type { ModelConfiguration } from "../model/config.js";
import { type AgentConfig, AgentConfigSchema, parseInput } from "../options.js";

export interface ResolvedAgentConfig {
  mode: AgentMode;
  /** The agent's own model; the client's when undefined. */
  model: ModelConfiguration | undefined;
  /** The model of the tools' act/extract calls: the agent's model when not given. */
  executionModel: ModelConfiguration | undefined;
  systemPrompt: string | undefined;
  stream: boolean;
}

/** The client's own model, which the agent uses when its config names none. */
export interface ClientModel {
  model: ModelConfiguration | undefined;
  /** A custom AI SDK model: its abilities cannot be read from a name. */
  custom: boolean;
}

export function resolveAgentConfig(
  input: AgentConfig | undefined,
  logger: Logger,
  client: ClientModel = { model: undefined, custom: false },
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
  checkMode(mode, model, client);
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

/** What kind of model runs each mode, for the advice of a refusal. */
const MODELS_FOR: Record<AgentMode, string> = {
  dom: "a model that calls tools",
  hybrid: "a model that sees images (e.g. openai/gpt-4.1)",
  cua: "a computer-use model (e.g. openai/computer-use-preview, anthropic/claude-sonnet-4-5)",
};

/** A model that cannot run the mode is refused now, naming the modes it can run. */
function checkMode(
  mode: AgentMode,
  own: ModelConfiguration | undefined,
  client: ClientModel,
): void {
  const model = own ?? client.model;
  if (own === undefined && client.custom) {
    if (mode === "cua") {
      throw new UnsupportedModelError("the llmClient", ["dom", "hybrid"], {
        operation:
          'agent mode "cua" (it needs a provider\'s computer-use protocol: name the model in agent({ model }))',
        supportedLabel: "Modes it can run",
        advice:
          'Set agentConfig.mode to "dom" or "hybrid", or agentConfig.model to a computer-use model',
      });
    }
    return;
  }
  // No model at all: said by the first model call, as everywhere else.
  if (model === undefined) return;
  const modes = agentModesOf(model);
  if (!modes.includes(mode)) {
    throw new UnsupportedModelError(labelOfConfig(model), modes, {
      operation: `agent mode "${mode}"`,
      supportedLabel: "Modes it can run",
      advice: `Set agentConfig.mode to ${modes.map((m) => `"${m}"`).join(" or ")}, or agentConfig.model to ${MODELS_FOR[mode]}`,
    });
  }
}
