/**
 * Which agent modes a model can run: dom needs tool calls; hybrid also needs to see
 * screenshots; cua needs the provider's own computer-use protocol (OpenAI's and Gemini's
 * computer-use models, Anthropic's computer-use tool). Names are matched by pattern,
 * so that dated and newer versions of a family count.
 */

import type { AgentMode } from "../options.js";
import type { ModelConfiguration } from "./config.js";
import { prefixedModelName } from "./legacyModelNames.js";

export type { AgentMode };

/** Families that see images, by provider (azure and OpenAI-compatible servers: any name). */
const SEES_IMAGES: Record<string, RegExp | true> = {
  openai: /gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|^o1(?!-mini)|^o3(?!-mini)|^o4/,
  anthropic: /claude/,
  google: /gemini/,
  vertex: /gemini|claude/,
  bedrock: /claude|nova-(pro|lite|premier)|llama.*vision|pixtral/,
  azure: true,
  microsoft: /multimodal|vision/,
};

/** The computer-use protocol a model speaks, if any. */
export function computerUseOf(
  model: ModelConfiguration,
): { provider: "openai" | "anthropic" | "google"; version?: string } | undefined {
  const { provider, modelId } = nameOf(model);
  // A bare computer-use name at a baseURL goes to OpenAI's protocol too (providers.ts).
  if ((provider === "openai" || provider === "") && /computer-use/.test(modelId)) {
    return { provider: "openai" };
  }
  if (provider === "google" && /computer-use/.test(modelId)) return { provider };
  if (provider === "anthropic") {
    if (/opus-4-[5-9]|opus-4\.[5-9]/.test(modelId)) {
      return { provider, version: "computer_20251124" };
    }
    if (/claude-(3-7|sonnet-4|opus-4|haiku-4)|claude-(sonnet|opus|haiku)-4/.test(modelId)) {
      return { provider, version: "computer_20250124" };
    }
    if (/claude-3-5-sonnet/.test(modelId)) return { provider, version: "computer_20241022" };
  }
  return undefined;
}

/** The modes this model can run; a custom `llmClient` is taken at its word for dom and hybrid. */
export function agentModesOf(model: ModelConfiguration | undefined): AgentMode[] {
  if (model === undefined) return ["dom", "hybrid"];
  // OpenAI's computer-use model speaks nothing but that protocol; Gemini's take ordinary tools
  // too (the reference's dom agent runs them, and its suite says so).
  const protocol = computerUseOf(model);
  if (protocol?.provider === "openai") return ["cua"];
  const { provider, modelId, custom } = nameOf(model);
  const sees = SEES_IMAGES[provider];
  const modes: AgentMode[] = ["dom"];
  if (custom || sees === true || sees?.test(modelId)) modes.push("hybrid");
  if (computerUseOf(model)) modes.push("cua");
  return modes;
}

export function labelOfConfig(model: ModelConfiguration): string {
  const { provider, modelId } = nameOf(model);
  return provider ? `${provider}/${modelId}` : modelId;
}

function nameOf(model: ModelConfiguration): { provider: string; modelId: string; custom: boolean } {
  const config = typeof model === "string" ? { modelName: model } : model;
  const given = "provider" in config && typeof config.provider === "string" ? config.provider : "";
  // A name of the older form, alone, is its provider's (as lib/model/providers.ts resolves it).
  const alone = !given && !("baseURL" in config && config.baseURL);
  const name = (alone && prefixedModelName(config.modelName)) || config.modelName;
  const [prefix, ...rest] = name.split("/");
  const hasPrefix = rest.length > 0;
  return {
    provider: given || (hasPrefix ? prefix! : ""),
    modelId: (hasPrefix && (!given || prefix === given) ? rest.join("/") : name).toLowerCase(),
    // A bare name at a baseURL: an OpenAI-compatible server we know nothing about.
    custom: !given && !hasPrefix,
  };
}
