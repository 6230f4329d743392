/**
 * zod schemas for every public option. Types are inferred from them; defaults live here, and
 * so do the descriptions docs/reference/options.md is generated from.
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

export const ViewportSchema = z
  .object({
    width: positiveInt("width").describe("CSS pixels."),
    height: positiveInt("height").describe("CSS pixels."),
  })
  .describe("The page size in CSS pixels, applied to every page of the client.");

export const ProxySchema = z
  .object({
    server: z
      .string()
      .min(1, { error: 'expected a proxy server such as "http://host:port"' })
      .describe(
        "The proxy, e.g. `http://host:port` or `socks5://host:port`. Credentials written in it (`http://user:pass@host`) are moved to username/password, off the command line.",
      ),
    bypass: z
      .string()
      .optional()
      .describe("Comma-separated hosts that skip the proxy, e.g. `localhost,.internal`."),
    username: z.string().optional().describe("Answers the proxy's challenge (over CDP)."),
    password: z.string().optional().describe("Answers the proxy's challenge; redacted everywhere."),
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

/**
 * Headers for the WebSocket to a browser of one's own (`cdpUrl`): at most 32, 8 KB in all, names
 * as HTTP has them, values on one line, and none that the connection sets itself.
 */
export const CdpHeadersSchema = z
  .record(z.string(), z.string().regex(/^[^\r\n\0]*$/, { error: "expected a value on one line" }))
  .refine((headers) => Object.keys(headers).every((name) => HEADER_NAME.test(name)), {
    error: "expected HTTP header names (letters, digits and !#$%&'*+.^_`|~-)",
  })
  .refine((headers) => Object.keys(headers).length <= 32, { error: "expected at most 32 headers" })
  .refine((headers) => JSON.stringify(headers).length <= 8_192, {
    error: "expected at most 8 KB of headers",
  })
  .refine((headers) => !Object.keys(headers).some((name) => CONNECTION_HEADERS.test(name)), {
    error:
      "expected no header the connection sets itself (Host, Connection, Upgrade, Sec-WebSocket-*)",
  });
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const CONNECTION_HEADERS =
  /^(host|connection|upgrade|content-length|transfer-encoding|sec-websocket-.*)$/i;

export const LocalBrowserLaunchOptionsSchema = z.looseObject({
  headless: z
    .boolean()
    .default(true)
    .describe("`--headless`; `false` needs a display and a system Chromium."),
  executablePath: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The browser binary. Unset: `CHROME_PATH`, then the Chromium of `@sparticuz/chromium` (Linux x64), then a system Chromium or Chrome.",
    ),
  port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .optional()
    .describe("A fixed `--remote-debugging-port`; unset, a free one is picked."),
  args: z
    .array(z.string())
    .default([])
    .describe(
      "Appended after the defaults; a later value of a switch wins, `--enable/disable-features` lists are merged. Flags that switch web security off are refused with a warning.",
    ),
  ignoreDefaultArgs: z
    .union([z.boolean(), z.array(z.string())])
    .default(false)
    .describe(
      "`true` drops the reference's and the launcher's default arguments; a list drops exactly those. What drives the browser (debugging port, profile, `--no-sandbox` as root) is never dropped.",
    ),
  userDataDir: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The profile folder, kept after close. Unset: a temporary profile, removed on close.",
    ),
  context: z
    .strictObject({
      path: z.string().min(1).describe("The context's file (made on the first save)."),
      persist: z
        .boolean()
        .default(false)
        .describe("Save the browser's profile back into the file on close."),
    })
    .optional()
    .describe(
      "A browser profile kept between runs (cookies, session cookies too, localStorage, IndexedDB) in one file sealed with the key in `WAYFARER_CONTEXT_KEY`: a login kept for scheduled jobs. Not with `userDataDir` or `cdpUrl`.",
    ),
  viewport: ViewportSchema.optional().describe(
    "The exact page size on every page. Unset: a 1280×720 window.",
  ),
  devtools: z.boolean().default(false).describe("Opens DevTools for each tab; implies headful."),
  proxy: ProxySchema.optional().describe("Routes the browser's traffic through a proxy."),
  ignoreHTTPSErrors: z
    .boolean()
    .default(false)
    .describe("`--ignore-certificate-errors`: accept any certificate."),
  cdpUrl: z
    .string()
    .regex(/^(wss?|https?):\/\//, { error: "expected a ws://, wss://, http:// or https:// URL" })
    .optional()
    .describe(
      "Attach to a running browser (`ws://…` or `http://host:port`) instead of launching one; the launch options above are then unused.",
    ),
  cdpHeaders: CdpHeadersSchema.optional().describe(
    "Headers sent with the connection to `cdpUrl` (a token its host asks for); kept out of every log.",
  ),
});
export type LocalBrowserLaunchOptions = z.input<typeof LocalBrowserLaunchOptionsSchema>;

export type ResolvedLaunchOptions = z.output<typeof LocalBrowserLaunchOptionsSchema>;
export const KNOWN_LAUNCH_OPTIONS = Object.keys(LocalBrowserLaunchOptionsSchema.shape);

export { type ModelConfiguration, ModelConfigurationSchema } from "./model/config.js";

export type DialogHandler = (dialog: Dialog) => void | Promise<void>;
export const DialogPolicySchema = z.union([
  z.enum(["dismiss", "accept"]),
  z
    .custom<DialogHandler>((v) => typeof v === "function", {
      error: 'expected "dismiss", "accept" or a function (dialog) => ...',
    })
    .meta({ type: "(dialog: Dialog) => void | Promise<void>" }),
]);
export type DialogPolicy = z.infer<typeof DialogPolicySchema>;

export const ENVIRONMENTS = ["LOCAL", "REMOTE", "BROWSERBASE"] as const;

export const V3OptionsSchema = z.object({
  env: z
    .enum(ENVIRONMENTS)
    .describe(
      '`"LOCAL"` runs Chromium on this machine. `"REMOTE"` (alias `"BROWSERBASE"`) runs it in a session of a Wayfarer service (`WAYFARER_API_URL`, `WAYFARER_API_KEY`): see docs/guide/remote.md.',
    ),
  apiKey: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The service API key of the remote environment; wins over `WAYFARER_API_KEY`. Redacted everywhere.",
    ),
  browserbaseSessionID: z
    .string()
    .min(1)
    .optional()
    .describe("Resume this remote session instead of starting one. No effect yet."),
  browserbaseSessionCreateParams: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Extra parameters for starting a remote session. No effect yet."),
  localBrowserLaunchOptions: LocalBrowserLaunchOptionsSchema.default({
    headless: true,
    args: [],
    ignoreDefaultArgs: false,
    devtools: false,
    ignoreHTTPSErrors: false,
  }).describe("How the local browser is launched, or which one to attach to (below)."),
  model: ModelConfigurationSchema.optional().describe(
    'The model of act, extract, observe and the agent: `"provider/model"` or a configuration object (see Model configuration).',
  ),
  llmClient: z
    .custom<Exclude<LanguageModel, string>>(
      (v) =>
        typeof v === "object" &&
        v !== null &&
        typeof (v as { doGenerate?: unknown }).doGenerate === "function" &&
        typeof (v as { modelId?: unknown }).modelId === "string",
      { error: "expected an AI SDK LanguageModel (an object with modelId and doGenerate)" },
    )
    .optional()
    .meta({
      libraryOnly: true,
      type: "LanguageModel",
      description:
        "An AI SDK language model (any provider package, or your own); replaces `model`'s.",
    }),
  systemPrompt: z
    .string()
    .optional()
    .describe("Added to the system prompt of every model call (act, extract, observe, agent)."),
  selfHeal: z
    .boolean()
    .default(true)
    .describe(
      "When an action's element is gone or changed, act looks again on a fresh outline (also inside the agent).",
    ),
  experimental: z.boolean().default(false).describe("Parsed; nothing is experimental yet."),
  domSettleTimeout: z
    .number()
    .int()
    .min(0)
    .default(30_000)
    .describe(
      "The most, in ms, a capture waits for the page to stop moving (loading documents, scripts, XHR/fetch, DOM changes); a page at rest is captured at once.",
    ),
  cacheDir: z
    .string()
    .min(1)
    .optional()
    .describe(
      "A folder of recorded actions: act, observe and dom-mode agent runs replay them without the model, on the same elements only (a changed one heals through the model and is written back). Read-only is fine: new entries then go to an overlay under the OS temp folder.",
    ),
  keepAlive: z
    .boolean()
    .optional()
    .describe(
      "`true`: close() disconnects and leaves the browser running. Unset: `false` for a launched browser, `true` for one attached by `cdpUrl`.",
    ),
  serverCache: z
    .boolean()
    .default(true)
    .describe(
      "The service's cache for act, extract and observe (remote environment only; overridable per call).",
    ),
  verbose: z
    .union([z.literal(0), z.literal(1), z.literal(2)])
    .default(1)
    .describe("Log level: 0 errors, 1 info, 2 debug."),
  logInferenceToFile: z
    .boolean()
    .default(false)
    .describe(
      "Writes one redacted JSON file per model call (request, answer, usage) into `./inference_summary/`.",
    ),
  disablePino: z
    .boolean()
    .default(false)
    .describe("Stops the default JSON lines on stdout (pino); `logger` still receives every line."),
  logger: z
    .custom<LogReceiver>((v) => typeof v === "function", {
      error: "expected a function (line) => void",
    })
    .optional()
    .meta({
      libraryOnly: true,
      type: "(line: LogLine) => void",
      description:
        "Receives every emitted log line `{category, message, level, auxiliary, timestamp}`.",
    }),
  dialogs: DialogPolicySchema.default("dismiss").describe(
    "Wayfarer's addition: what happens to alert, confirm, prompt and beforeunload dialogs.",
  ),
  outlineTokenBudget: z
    .number()
    .int()
    .min(100)
    .max(1_000_000)
    .default(12_000)
    .describe(
      "Wayfarer's addition: model calls whose page outline is larger than this many tokens work on viewport-ordered chunks of it. `extract()` without an instruction always returns it whole.",
    ),
  egress: z
    .strictObject({
      refuse: z
        .array(z.enum(["link-local", "loopback", "private"]))
        .default(["link-local", "loopback", "private"])
        .describe("Kinds of address refused (link-local includes cloud metadata)."),
      allowHosts: z
        .array(z.string().min(1))
        .default([])
        .describe(
          "Let through: host names as written (whatever they resolve to), addresses and CIDR ranges (`10.0.0.0/8`).",
        ),
    })
    .optional()
    .describe(
      "Wayfarer's addition: guards every request of the browser (documents, frames, images, scripts, fetch/XHR, WebSockets, workers) with the address rule, through a proxy on 127.0.0.1 that connects only to addresses it has judged. Off by default in LOCAL, where only documents of agent runs and jobs are guarded; the HTTP service turns it on. Needs a browser Wayfarer launches, without a proxy of its own.",
    ),
  maxChunksPerCall: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(8)
    .describe(
      "Wayfarer's addition: the most outline chunks one act, observe or extract call sends to the model (one model call each); the rest of a huge page is not read, and a warning says so.",
    ),
  tokenCap: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "Wayfarer's addition: the most model tokens (prompt and completion) this client may spend. Checked before every model call: a call that would go past it is not made and fails with `TokenCapError`. Unset: no cap (the job sets 200000).",
    ),
});
export type V3Options = z.input<typeof V3OptionsSchema>;
export const KNOWN_OPTIONS = Object.keys(V3OptionsSchema.shape);
export type ResolvedOptions = z.output<typeof V3OptionsSchema>;

/** Options that act only in the remote environment: under LOCAL they are parsed and ignored. */
export const REMOTE_ONLY_OPTIONS = [
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
export const PageOptionSchema = z
  .custom<object>((v) => typeof v === "object" && v !== null, {
    error: "expected a page from client.context.pages()",
  })
  .meta({ type: "Page" });

export const ExtractOptionsSchema = z.strictObject({
  model: ModelConfigurationSchema.optional().describe(
    "This call's model; the client's when absent.",
  ),
  timeout: z
    .lazy(() => TimeoutSchema)
    .optional()
    .describe(
      "The most the whole call may take, settling and capture included (default 30000). Past it: `ServiceTimeoutError`, naming the step it was in.",
    ),
  selector: SelectorSchema.optional().describe(
    "Limits the outline to this element and what it holds (XPath, or CSS with `>>` frame hops).",
  ),
  ignoreSelectors: z
    .array(SelectorSchema)
    .optional()
    .describe("Leaves out every match of each selector, with its descendants."),
  screenshot: z
    .boolean()
    .optional()
    .describe("Sends a viewport PNG with the outline to the model (an instruction is needed)."),
  page: PageOptionSchema.optional().meta({
    libraryOnly: true,
    description: "The page to work on (it becomes the active one); the active page when absent.",
  }),
  serverCache: z
    .boolean()
    .optional()
    .describe("Overrides the client's `serverCache` for this call (remote environment only)."),
});
export type ExtractOptions = z.input<typeof ExtractOptionsSchema>;

const Primitive = z.union([z.string(), z.number(), z.boolean()]);
/** An origin a variable may also be typed on: `https://login.example.com` (a path is ignored). */
const OriginSchema = z.string().refine((s) => /^https?:$/.test(URL.parse(s)?.protocol ?? ""), {
  error: "expected an http or https origin, such as https://login.example.com",
});
/** A value for `%name%` tokens: a primitive, or `{ value, description?, origins? }`. */
export const VariableValueSchema = z.union([
  Primitive,
  z.strictObject({
    value: Primitive,
    description: z.string().optional(),
    origins: z
      .array(OriginSchema)
      .optional()
      .describe(
        "Origins where the value may be typed besides the one the run started on; anywhere else typing it is refused.",
      ),
  }),
]);
export const VariablesSchema = z
  .record(
    z.string().regex(/^\w+$/, { error: "expected a variable name of letters, digits and _" }),
    VariableValueSchema,
  )
  .describe(
    "Values for `%name%` tokens in the instruction: `{ name: value }` or `{ name: { value, description, origins } }`. The model sees the name and the description, never the value; history records names only. A value is typed only on the origin the run started on and the `origins` it names.",
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
  selector: SelectorSchema.describe(
    "The element, in the outline's `xpath=` form (through frames and shadow roots).",
  ),
  description: z.string().describe("What the element is, in words."),
  method: z.enum(ACTION_METHODS).optional().describe("What to do with it."),
  arguments: z
    .array(z.string())
    .optional()
    .describe(
      "The method's arguments (text to type, a key, a percentage); may hold `%name%` tokens.",
    ),
  backendNodeId: z
    .number()
    .int()
    .optional()
    .describe(
      "The reference's DOM node id, as its clients send an observed action back: accepted; the selector names the element.",
    ),
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

/** The event a navigation (goto, reload, goBack, goForward) waits for. */
export const WaitUntilSchema = z.enum(["load", "domcontentloaded", "networkidle", "commit"]);

export const NavigationOptionsSchema = z
  .strictObject({
    waitUntil: WaitUntilSchema.optional().describe(
      'The event that ends the navigation (default "load").',
    ),
    timeout: z
      .lazy(() => TimeoutSchema)
      .optional()
      .describe("The most it may take, in ms (default 30000)."),
    referer: z.string().optional().describe("goto only: the Referer header to send."),
  })
  .optional();
export type NavigationOptions = z.input<typeof NavigationOptionsSchema>;

/** Positive, bounded wait in ms: every public wait takes one; 0 or Infinity is refused. */
export const TimeoutSchema = z
  .number({ error: "expected a timeout in milliseconds" })
  .int()
  .positive({ error: "expected a timeout above 0 ms (every wait is bounded)" })
  .max(10 * 60_000, { error: "expected a timeout of at most 600000 ms" })
  .meta({ type: "number (ms, 1–600000)" });

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
  provider: z
    .enum(LEGACY_AGENT_PROVIDERS)
    .optional()
    .describe(
      'Deprecated (a warning says so): write the provider as the model\'s prefix, `"openai/gpt-4.1"`.',
    ),
  model: ModelConfigurationSchema.optional().describe(
    "The agent's model; the client's when absent. It must be able to run the mode (else `UnsupportedModelError`).",
  ),
  systemPrompt: z.string().optional().describe("Added after the agent's own system prompt."),
  cua: z
    .boolean()
    .optional()
    .describe(
      'Deprecated (a warning says so): use `mode: "cua"`. `mode` wins when both are given.',
    ),
  mode: z
    .enum(AGENT_MODES)
    .optional()
    .describe(
      "How the agent acts (default `dom`): `dom` through the page outline, `hybrid` also by screen coordinates, `cua` through the provider's computer-use protocol.",
    ),
  executionModel: ModelConfigurationSchema.optional().describe(
    "The model of the act and extract calls the agent's tools make; the agent's model when absent.",
  ),
  stream: z.boolean().optional().meta({
    libraryOnly: true,
    description:
      "`execute()` answers at once with `{ fullStream, result }`: the run's events as they happen, and the result's promise.",
  }),
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
    .min(1, { error: "expected an instruction, not an empty string" })
    .describe("The task, in words; may hold `%name%` tokens of `variables`."),
  maxSteps: z
    .number({ error: "expected a number of steps" })
    .int()
    .positive({ error: "expected at least 1 step" })
    .max(500, { error: "expected at most 500 steps" })
    .default(DEFAULT_MAX_STEPS)
    .describe("The most model steps (1–500); reached, the run ends with `completed: false`."),
  highlightCursor: z
    .boolean()
    .optional()
    .describe("Shows a red dot where the agent acts (taken off when the run ends)."),
  useSearch: z
    .boolean()
    .optional()
    .describe(
      "Offers the `search` tool (through `WAYFARER_SEARXNG_URL` or `BRAVE_SEARCH_API_KEY`).",
    ),
  // No schema default: a run sent over the wire to a foreign v1 service carries only what the
  // caller set. The default (5) is the loop's (lib/agent/guardrails.ts).
  maxConsecutiveFailures: z
    .number({ error: "expected a number of tool calls" })
    .int()
    .positive({ error: "expected at least 1 tool call" })
    .max(100, { error: "expected at most 100 tool calls" })
    .optional()
    .describe(
      'Tool calls failing one after another that end the run (`completed: false`, `stoppedBy: "failures"`); default 5.',
    ),
  toolTimeout: z
    .lazy(() => TimeoutSchema)
    .default(DEFAULT_TOOL_TIMEOUT_MS)
    .describe("The most one tool call may take, in ms; past it the model gets a tool error."),
  variables: VariablesSchema.optional(),
  signal: z
    .custom<AbortSignal>((v) => v instanceof AbortSignal, { error: "expected an AbortSignal" })
    .optional()
    .meta({
      libraryOnly: true,
      type: "AbortSignal",
      description:
        "Stops the run: a model call in flight is cancelled, a tool in flight finishes. `execute()` has no overall timeout of its own: pass `AbortSignal.timeout(ms)`.",
    }),
  page: PageOptionSchema.optional().meta({
    libraryOnly: true,
    description: "The page to start on (it becomes the active one); the active page when absent.",
  }),
  onSafetyCheck: z
    .custom<
      (checks: { id: string; code?: string; message?: string }[]) => boolean | Promise<boolean>
    >((v) => typeof v === "function", { error: "expected a function" })
    .optional()
    .meta({
      libraryOnly: true,
      type: "(checks: SafetyCheck[]) => boolean | Promise<boolean>",
      description:
        "cua mode: asked when the provider raises safety checks before an action; `true` acknowledges them and the action runs. Without it, or on `false`, the run stops.",
    }),
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
