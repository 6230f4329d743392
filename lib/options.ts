/**
 * zod schemas for every public option. Types are inferred from them; defaults live here.
 * The models issue gives `model` and `llmClient` their full schemas; until then they are
 * parsed loosely so that existing configurations keep working.
 */

import type { LanguageModel } from "ai";
import type { Dialog } from "playwright-core";
import { z } from "zod";
import { ServiceValidationError } from "./errors.js";
import type { LogReceiver } from "./log.js";
import { ModelConfigurationSchema } from "./model/config.js";

const positiveInt = (what: string) =>
  z
    .number({ error: `expected ${what} as a number of pixels` })
    .int()
    .positive();

export const ViewportSchema = z.object({
  width: positiveInt("width"),
  height: positiveInt("height"),
});

export const ProxySchema = z
  .object({
    server: z.string().min(1, { error: 'expected a proxy server such as "http://host:port"' }),
    bypass: z.string().optional(),
    username: z.string().optional(),
    password: z.string().optional(),
  })
  .transform((proxy) => {
    // Chromium ignores credentials inside --proxy-server, and a command line is visible to every
    // local user: move `http://user:pass@host` credentials to username/password.
    const match = /^([a-z][a-z0-9+.-]*:\/\/)?([^/@:]*)(?::([^/@]*))?@(.*)$/i.exec(proxy.server);
    if (!match) return proxy;
    const [, scheme = "", user = "", pass = "", rest] = match;
    return {
      ...proxy,
      server: `${scheme}${rest}`,
      username: proxy.username ?? decodeURIComponent(user),
      password: proxy.password ?? decodeURIComponent(pass),
    };
  });

export const LocalBrowserLaunchOptionsSchema = z.looseObject({
  headless: z.boolean().default(true),
  executablePath: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  args: z.array(z.string()).default([]),
  ignoreDefaultArgs: z.union([z.boolean(), z.array(z.string())]).default(false),
  userDataDir: z.string().min(1).optional(),
  viewport: ViewportSchema.optional(),
  devtools: z.boolean().default(false),
  proxy: ProxySchema.optional(),
  ignoreHTTPSErrors: z.boolean().default(false),
  cdpUrl: z
    .string()
    .regex(/^(wss?|https?):\/\//, { error: "expected a ws://, wss://, http:// or https:// URL" })
    .optional(),
});
export type LocalBrowserLaunchOptions = z.input<typeof LocalBrowserLaunchOptionsSchema>;
export type ResolvedLaunchOptions = z.output<typeof LocalBrowserLaunchOptionsSchema>;
export const KNOWN_LAUNCH_OPTIONS = Object.keys(LocalBrowserLaunchOptionsSchema.shape);

export { type ModelConfiguration, ModelConfigurationSchema } from "./model/config.js";

export type DialogHandler = (dialog: Dialog) => void | Promise<void>;
export const DialogPolicySchema = z.union([
  z.enum(["dismiss", "accept"]),
  z.custom<DialogHandler>((v) => typeof v === "function", {
    error: 'expected "dismiss", "accept" or a function (dialog) => ...',
  }),
]);
export type DialogPolicy = z.infer<typeof DialogPolicySchema>;

export const ENVIRONMENTS = ["LOCAL", "REMOTE", "BROWSERBASE"] as const;

export const V3OptionsSchema = z.object({
  env: z.enum(ENVIRONMENTS),
  apiKey: z.string().min(1).optional(),
  browserbaseSessionID: z.string().min(1).optional(),
  browserbaseSessionCreateParams: z.record(z.string(), z.unknown()).optional(),
  localBrowserLaunchOptions: LocalBrowserLaunchOptionsSchema.default({
    headless: true,
    args: [],
    ignoreDefaultArgs: false,
    devtools: false,
    ignoreHTTPSErrors: false,
  }),
  model: ModelConfigurationSchema.optional(),
  /** An AI SDK language model (any provider package, or your own): replaces `model`'s. */
  llmClient: z
    .custom<Exclude<LanguageModel, string>>(
      (v) =>
        typeof v === "object" &&
        v !== null &&
        typeof (v as { doGenerate?: unknown }).doGenerate === "function" &&
        typeof (v as { modelId?: unknown }).modelId === "string",
      { error: "expected an AI SDK LanguageModel (an object with modelId and doGenerate)" },
    )
    .optional(),
  systemPrompt: z.string().optional(),
  selfHeal: z.boolean().default(true),
  experimental: z.boolean().default(false),
  domSettleTimeout: z.number().int().min(0).default(30_000),
  cacheDir: z.string().min(1).optional(),
  keepAlive: z.boolean().optional(),
  serverCache: z.boolean().default(true),
  verbose: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(1),
  logInferenceToFile: z.boolean().default(false),
  disablePino: z.boolean().default(false),
  logger: z
    .custom<LogReceiver>((v) => typeof v === "function", {
      error: "expected a function (line) => void",
    })
    .optional(),
  /** Wayfarer's addition: what happens to alert/confirm/prompt/beforeunload. Default "dismiss". */
  dialogs: DialogPolicySchema.default("dismiss"),
  /**
   * Wayfarer's addition: model calls whose page outline is larger than this many tokens work on
   * viewport-ordered chunks of it. `extract()` without an instruction always returns it whole.
   */
  outlineTokenBudget: z.number().int().min(100).max(1_000_000).default(12_000),
});
export type V3Options = z.input<typeof V3OptionsSchema>;
export const KNOWN_OPTIONS = Object.keys(V3OptionsSchema.shape);
export type ResolvedOptions = z.output<typeof V3OptionsSchema>;

/** Options given at top level whose capability a later release builds; they are parsed, not yet used. */
export const NOT_YET_ACTIVE_OPTIONS = [
  "cacheDir",
  "serverCache",
  "browserbaseSessionID",
  "browserbaseSessionCreateParams",
] as const;

/** Parses a public input at the boundary; the error names each field and what was expected. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ServiceValidationError(
    where,
    result.error.issues.map((i) => ({ path: i.path, message: i.message })),
  );
}

/** A selector as the reference takes it: XPath, `xpath=...`, or CSS with `>>` frame hops. */
export const SelectorSchema = z
  .string({ error: "expected a selector string (XPath or CSS)" })
  .trim()
  .min(1, { error: "expected a selector, not an empty string" });

/** A page of this client: one of `client.context.pages()`, or the Playwright page under one. */
export const PageOptionSchema = z.custom<object>((v) => typeof v === "object" && v !== null, {
  error: "expected a page from client.context.pages()",
});

export const ExtractOptionsSchema = z.strictObject({
  model: ModelConfigurationSchema.optional(),
  timeout: z.lazy(() => TimeoutSchema).optional(),
  selector: SelectorSchema.optional(),
  ignoreSelectors: z.array(SelectorSchema).optional(),
  screenshot: z.boolean().optional(),
  page: PageOptionSchema.optional(),
  serverCache: z.boolean().optional(),
});
export type ExtractOptions = z.input<typeof ExtractOptionsSchema>;

const Primitive = z.union([z.string(), z.number(), z.boolean()]);
/** A value for `%name%` tokens: a primitive, or `{ value, description? }`. */
export const VariableValueSchema = z.union([
  Primitive,
  z.strictObject({ value: Primitive, description: z.string().optional() }),
]);
export const VariablesSchema = z.record(
  z.string().regex(/^\w+$/, { error: "expected a variable name of letters, digits and _" }),
  VariableValueSchema,
);
export type Variables = z.input<typeof VariablesSchema>;

/** The actions observe returns and act performs (DESIGN.md's method names). */
export const ACTION_METHODS = [
  "click",
  "fill",
  "type",
  "press",
  "scrollTo",
  "nextChunk",
  "prevChunk",
  "selectOptionFromDropdown",
  "hover",
  "doubleClick",
  "dragAndDrop",
] as const;

export const ActionSchema = z.strictObject({
  selector: SelectorSchema,
  description: z.string(),
  method: z.enum(ACTION_METHODS).optional(),
  arguments: z.array(z.string()).optional(),
});
export type Action = z.infer<typeof ActionSchema>;

/** observe's options are extract's, with variables instead of a screenshot. */
export const ObserveOptionsSchema = ExtractOptionsSchema.omit({ screenshot: true }).extend({
  variables: VariablesSchema.optional(),
});
export type ObserveOptions = z.input<typeof ObserveOptionsSchema>;

/** act's options are observe's without a scope. */
export const ActOptionsSchema = ObserveOptionsSchema.omit({
  selector: true,
  ignoreSelectors: true,
});
export type ActOptions = z.input<typeof ActOptionsSchema>;

/** Positive, bounded wait in ms: every public wait takes one; 0 or Infinity is refused. */
export const TimeoutSchema = z
  .number({ error: "expected a timeout in milliseconds" })
  .int()
  .positive({ error: "expected a timeout above 0 ms (every wait is bounded)" })
  .max(10 * 60_000, { error: "expected a timeout of at most 600000 ms" });

/** The agent's ways of acting: through the outline (dom), plus coordinates (hybrid), or the provider's computer-use protocol (cua). */
export const AGENT_MODES = ["dom", "hybrid", "cua"] as const;
export type AgentMode = (typeof AGENT_MODES)[number];
export const LEGACY_AGENT_PROVIDERS = [
  "openai",
  "anthropic",
  "google",
  "microsoft",
  "bedrock",
] as const;

export const AgentConfigSchema = z.strictObject({
  /** Deprecated: write the provider as the model's prefix ("openai/gpt-4.1"). */
  provider: z.enum(LEGACY_AGENT_PROVIDERS).optional(),
  model: ModelConfigurationSchema.optional(),
  systemPrompt: z.string().optional(),
  /** Deprecated: use mode "cua". `mode` wins when both are given. */
  cua: z.boolean().optional(),
  mode: z.enum(AGENT_MODES).optional(),
  /** The model the act/extract calls of the agent's tools use; the agent's model when absent. */
  executionModel: ModelConfigurationSchema.optional(),
  /** Library only: execute() returns `{ fullStream, result }` instead of the result. */
  stream: z.boolean().optional(),
});
export type AgentConfig = z.input<typeof AgentConfigSchema>;

export const DEFAULT_MAX_STEPS = 20;
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/** A check a computer-use provider raises before an action (OpenAI's, Gemini's). */
export const SafetyCheckSchema = z.object({
  id: z.string(),
  code: z.string().optional(),
  message: z.string().optional(),
});
export type SafetyCheck = z.infer<typeof SafetyCheckSchema>;

export const AgentExecuteOptionsSchema = z.strictObject({
  instruction: z
    .string({ error: "expected the task as an instruction string" })
    .trim()
    .min(1, { error: "expected an instruction, not an empty string" }),
  maxSteps: z
    .number({ error: "expected a number of steps" })
    .int()
    .positive({ error: "expected at least 1 step" })
    .max(500, { error: "expected at most 500 steps" })
    .default(DEFAULT_MAX_STEPS),
  highlightCursor: z.boolean().optional(),
  useSearch: z.boolean().optional(),
  toolTimeout: z.lazy(() => TimeoutSchema).default(DEFAULT_TOOL_TIMEOUT_MS),
  variables: VariablesSchema.optional(),
  /** Library only: stops the run between steps (the model call in flight is cancelled). */
  signal: z
    .custom<AbortSignal>((v) => v instanceof AbortSignal, { error: "expected an AbortSignal" })
    .optional(),
  /** Library only: the page to start on; the active page when absent. */
  page: PageOptionSchema.optional(),
  /**
   * Library only (cua): asked when the provider raises safety checks before an action; true
   * acknowledges them and the action runs. Without it, or on false, the run stops.
   */
  onSafetyCheck: z
    .custom<
      (checks: { id: string; code?: string; message?: string }[]) => boolean | Promise<boolean>
    >((v) => typeof v === "function", { error: "expected a function" })
    .optional(),
});
export type AgentExecuteOptions = z.input<typeof AgentExecuteOptionsSchema>;

/** One step of an agent run, as its result lists it. */
export const AgentActionSchema = z.looseObject({
  type: z.string(),
  reasoning: z.string().optional(),
  taskCompleted: z.boolean().optional(),
  action: z.string().optional(),
  timeMs: z.number().optional(),
  pageText: z.string().optional(),
  pageUrl: z.string().optional(),
  instruction: z.string().optional(),
});
export type AgentAction = z.infer<typeof AgentActionSchema>;

export const AgentUsageSchema = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  inference_time_ms: z.number(),
  reasoning_tokens: z.number().optional(),
  cached_input_tokens: z.number().optional(),
});
export type AgentUsage = z.infer<typeof AgentUsageSchema>;

export const AgentResultSchema = z.strictObject({
  success: z.boolean(),
  message: z.string(),
  actions: z.array(AgentActionSchema),
  completed: z.boolean(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  usage: AgentUsageSchema.optional(),
});
export type AgentResult = z.infer<typeof AgentResultSchema>;
