/**
 * What the remote environment is built from, read once from the client's options: the service's
 * key, its address, the model key sent with each call, what `/start` asks for, and the model
 * each call carries when the client's says more than a name.
 */
import { KEY_VARIABLES } from "../model/providers.js";
import { type ModelConfiguration, type ResolvedOptions, V3OptionsSchema } from "../options.js";

export interface RemoteSettings {
  /** Sent as x-model-api-key: the session's model calls use it. */
  modelApiKey: string | undefined;
  /** The client's model, sent in each call when it has more than a name and a key. */
  callModel: ModelConfiguration | undefined;
}

export function remoteSettings(
  options: ResolvedOptions,
  env: NodeJS.ProcessEnv = process.env,
): RemoteSettings {
  const model = options.model;
  const name = typeof model === "string" ? model : model?.modelName;
  const given = typeof model === "object" && "apiKey" in model ? model.apiKey : undefined;
  const provider = name?.split("/")[0] as keyof typeof KEY_VARIABLES | undefined;
  const fromEnv = provider && provider in KEY_VARIABLES ? env[KEY_VARIABLES[provider]] : undefined;
  const more =
    typeof model === "object" &&
    Object.keys(model).some((k) => k !== "modelName" && k !== "apiKey");
  return { modelApiKey: given ?? fromEnv, callModel: more ? model : undefined };
}

/** `POST /v1/sessions/start`'s body: the protocol's fields, and ours beside them (optional). */
export function startBody(options: ResolvedOptions): Record<string, unknown> {
  const model = options.model;
  const modelName = typeof model === "string" ? model : model?.modelName;
  const ours = ourSettings(options);
  return {
    ...(modelName ? { modelName } : {}),
    domSettleTimeoutMs: options.domSettleTimeout,
    verbose: options.verbose,
    ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
    selfHeal: options.selfHeal,
    ...(options.browserbaseSessionCreateParams
      ? { browserbaseSessionCreateParams: options.browserbaseSessionCreateParams }
      : {}),
    // Ours, sent only when they differ from the defaults: a service that checks /start strictly
    // sees the protocol's fields alone unless the caller asked for more.
    ...(Object.keys(ours).length ? { wayfarer: ours } : {}),
  };
}

/** How the session reads pages and spends tokens, where it differs from the defaults. */
function ourSettings(options: ResolvedOptions): Record<string, unknown> {
  const defaults = V3OptionsSchema.parse({ env: "LOCAL" });
  const ours: Record<string, unknown> = {};
  if (options.outlineTokenBudget !== defaults.outlineTokenBudget) {
    ours.outlineTokenBudget = options.outlineTokenBudget;
  }
  if (options.maxChunksPerCall !== defaults.maxChunksPerCall) {
    ours.maxChunksPerCall = options.maxChunksPerCall;
  }
  if (options.tokenCap) ours.tokenCap = options.tokenCap;
  // A handler is a function: it runs here, and the service leaves dialogs to it.
  if (typeof options.dialogs === "function") ours.dialogs = "leave";
  else if (options.dialogs !== defaults.dialogs) ours.dialogs = options.dialogs;
  return ours;
}
