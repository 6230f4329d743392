/**
 * The settings of `npm run mcp` (bin/wayfarer-mcp): one zod schema, each field with the
 * environment variable and the flag that set it (a flag wins), read strictly, so a mistyped
 * flag or value stops the start with its name rather than running with a default. An MCP
 * client starts the server from a config block, where a server that silently ignored half of
 * it would be hard to notice. The reference (docs/reference/mcp.md) is generated from it.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { ServiceValidationError } from "../errors.js";
import { ModelNameSchema } from "../model/config.js";
import { type V3Options, VariablesSchema } from "../options.js";
import { variablesFromEnv } from "./variables.js";

/** Where a setting comes from: its variable, and its flag when it has one (keys have none). */
// A type, not an interface: zod's metadata takes only objects with an index signature.
export type SettingSource = { env: string; flag?: string };

const from = (env: string, flag?: string): SettingSource => (flag ? { env, flag } : { env });
/** The service's own default for WAYFARER_MAX_PAGES. */
export const DEFAULT_MAX_PAGES = 10;
const onOff = () => z.boolean({ error: "expected true or false (also 1/0, on/off, yes/no)" });

export const McpSettingsSchema = z.strictObject({
  model: ModelNameSchema.optional()
    .describe(
      'The model of the model-backed tools (act, extract, observe, agent), as `"provider/model"`; its key comes from the provider\'s own variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …). Unset: those tools are not listed, and every other tool works without a model.',
    )
    .meta(from("WAYFARER_MCP_MODEL", "--model")),
  apiKey: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe(
      "A Wayfarer service's API key: the browser runs in a session of that service (REMOTE, at `WAYFARER_API_URL`) rather than on this machine. No flag, so that it never shows in a process list.",
    )
    .meta(from("WAYFARER_API_KEY")),
  apiUrl: z
    .url({ protocol: /^https?$/, error: "expected an http or https URL" })
    .optional()
    .describe(
      "The service of `WAYFARER_API_KEY` (`/v1` is appended when absent). Unset: `http://127.0.0.1:3000/v1`.",
    )
    .meta(from("WAYFARER_API_URL")),
  executablePath: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The Chromium or Chrome binary of the local browser. Unset: the Chromium of `@sparticuz/chromium` (Linux x64), then a system Chromium or Chrome.",
    )
    .meta(from("CHROME_PATH", "--executable-path")),
  headful: onOff()
    .default(false)
    .describe("Shows the local browser's window (needs a display) instead of running headless.")
    .meta(from("WAYFARER_MCP_HEADFUL", "--headful")),
  egress: onOff()
    .default(false)
    .describe(
      "Guards every request of the local browser with the address rule: loopback, private and link-local addresses (cloud metadata among them) are refused. Off by default, as for the library on this machine; a service's browser is always guarded.",
    )
    .meta(from("WAYFARER_MCP_EGRESS", "--egress")),
  browserArgs: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "Extra Chromium switches for the local browser. The flag repeats, once per switch, joined by `=` (`--browser-arg=--proxy-server=http://127.0.0.1:8080`); the variable is a JSON array of strings, or switches separated by spaces.",
    )
    .meta(from("WAYFARER_MCP_BROWSER_ARGS", "--browser-arg")),
  toolTimeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(30_000)
    .describe(
      "The most one tool call may take, in ms; past it the call answers a tool error. The agent tool is bounded by its steps instead.",
    )
    .meta(from("WAYFARER_MCP_TOOL_TIMEOUT_MS", "--tool-timeout-ms")),
  idleMs: z
    .number()
    .int()
    .refine((ms) => ms === 0 || (ms >= 60_000 && ms <= 86_400_000), {
      error: "expected 0 (never) or 60000 to 86400000 ms",
    })
    .default(600_000)
    .describe(
      "The browser is ended after this long without a tool call, in ms (0: kept until the server stops); the next call starts a new one and says so. A client such as Claude Desktop keeps the server running between chats: an idle browser would hold its memory, or with `WAYFARER_API_KEY` one of the project's sessions, for days.",
    )
    .meta(from("WAYFARER_MCP_IDLE_MS", "--idle-ms")),
  maxPages: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(DEFAULT_MAX_PAGES)
    .describe(
      "The most pages (tabs, popups) the local browser may have open at once, as `WAYFARER_MAX_PAGES` caps a service's session: one past it is closed as it opens (the page that opened it sees a window that closed at once), and the server's log says so. A page that opens a thousand windows would otherwise leave the browser too busy to answer.",
    )
    .meta(from("WAYFARER_MCP_MAX_PAGES", "--max-pages")),
  agentMaxSteps: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .describe("The agent tool's number of steps when a call names none.")
    .meta(from("WAYFARER_MCP_AGENT_MAX_STEPS", "--agent-max-steps")),
  verbose: z
    .union([z.literal(0), z.literal(1), z.literal(2)], {
      error: "expected 0 (errors), 1 (info) or 2 (debug)",
    })
    .default(0)
    .describe(
      "What the server logs, as JSON lines on stderr (stdout carries only the protocol): 0 errors, 1 info, 2 debug. Secrets and variables' values are redacted.",
    )
    .meta(from("WAYFARER_MCP_VERBOSE", "--verbose")),
  variables: VariablesSchema.default({})
    .describe(
      "`%NAME%` values the tools may type (`fill`, `type`, `fill_form`, `act`, the agent): `WAYFARER_MCP_VAR_<NAME>` is the value and `WAYFARER_MCP_ORIGINS_<NAME>` the comma-separated origins it may be typed on, both required. The calling model sees only the names; answers show values as their `%NAME%`.",
    )
    .meta(from("WAYFARER_MCP_VAR_<NAME>")),
});

export type McpSettings = z.output<typeof McpSettingsSchema>;
type Key = keyof McpSettings;

/** The variable and flag of each setting, as the schema's fields carry them. */
export function settingSource(key: Key): SettingSource {
  const meta = z.globalRegistry.get(McpSettingsSchema.shape[key]) as SettingSource | undefined;
  if (!meta?.env) throw new Error(`McpSettingsSchema.${key} names no variable`);
  return meta.flag ? { env: meta.env, flag: meta.flag } : { env: meta.env };
}

const KEYS = Object.keys(McpSettingsSchema.shape) as Key[];
const LIST_KEYS = new Set<Key>(["browserArgs"]);
const BOOLEAN_KEYS = new Set<Key>(["headful", "egress"]);
const NUMBER_KEYS = new Set<Key>([
  "toolTimeoutMs",
  "idleMs",
  "maxPages",
  "agentMaxSteps",
  "verbose",
]);

/** parseArgs' options, from the schema's flags; `--help` besides. */
function flagOptions() {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {
    help: { type: "boolean" },
  };
  for (const key of KEYS) {
    const { flag } = settingSource(key);
    if (!flag) continue;
    options[flag.slice(2)] = {
      type: BOOLEAN_KEYS.has(key) ? "boolean" : "string",
      ...(LIST_KEYS.has(key) ? { multiple: true } : {}),
    };
  }
  return options;
}

const TRUE = new Set(["1", "true", "on", "yes"]);
const FALSE = new Set(["0", "false", "off", "no", ""]);

/**
 * A variable's text as the field's type, where it reads as one; anything else is left as it
 * is for the schema to refuse, with the variable's name.
 */
function fromEnvText(key: Key, text: string): unknown {
  const value = text.trim();
  if (BOOLEAN_KEYS.has(key)) {
    const lower = value.toLowerCase();
    return TRUE.has(lower) ? true : FALSE.has(lower) ? false : text;
  }
  if (NUMBER_KEYS.has(key)) return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : text;
  if (LIST_KEYS.has(key)) {
    if (!value.startsWith("[")) return value.split(/\s+/).filter(Boolean);
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function fromFlag(key: Key, value: string | boolean | (string | boolean)[]): unknown {
  return NUMBER_KEYS.has(key) && typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())
    ? Number(value.trim())
    : value;
}

/** `--help` was asked for: nothing is started. */
export interface HelpAsked {
  help: true;
}

/**
 * The settings from the command line and the environment. Throws ServiceValidationError naming
 * the flag or variable whose value is refused, and what was expected; parseArgs' own error
 * (an unknown flag, a value missing) names the flag.
 */
export function readSettings(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): McpSettings | HelpAsked {
  const { values } = parseArgs({
    args: [...argv],
    options: flagOptions(),
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { help: true };
  const settings: Record<string, unknown> = {};
  for (const key of KEYS) {
    if (key === "variables") continue;
    const { env: name, flag } = settingSource(key);
    const given = flag ? values[flag.slice(2)] : undefined;
    const where = given !== undefined ? (flag as string) : name;
    const raw =
      given !== undefined
        ? fromFlag(key, given)
        : env[name] !== undefined
          ? fromEnvText(key, env[name])
          : undefined;
    // An empty variable is as good as unset: config blocks often carry `"KEY": ""`.
    if (raw === undefined || (given === undefined && env[name] === "")) continue;
    const parsed = McpSettingsSchema.shape[key].safeParse(raw);
    if (!parsed.success) throw new ServiceValidationError(where, parsed.error.issues);
    settings[key] = parsed.data;
  }
  settings.variables = variablesFromEnv(env);
  return McpSettingsSchema.parse(settings);
}

/** Where the browser runs, said once at the start. */
export function whereItRuns(settings: McpSettings): string {
  return settings.apiKey
    ? `REMOTE (a session of the service at ${settings.apiUrl ?? "http://127.0.0.1:3000"})`
    : "LOCAL (a browser on this machine)";
}

/**
 * Settings of the local browser given to a server whose browser is a service's: named, so that
 * the user can drop them. CHROME_PATH is often set machine-wide, so it counts only as a flag.
 */
export function inactiveSettings(
  settings: McpSettings,
  env: Record<string, string | undefined>,
): string[] {
  if (!settings.apiKey) return [];
  const named: string[] = [];
  if (settings.executablePath && settings.executablePath !== env.CHROME_PATH) {
    named.push("--executable-path");
  }
  if (settings.headful) named.push("headful");
  if (settings.egress) named.push("egress");
  if (settings.browserArgs.length) named.push("browser arguments");
  // The service's own cap holds its sessions' pages.
  if (settings.maxPages !== McpSettingsSchema.shape.maxPages.parse(undefined)) {
    named.push("max pages");
  }
  return named;
}

/** The client options the host's engine is made with. */
export function clientOptions(settings: McpSettings): V3Options {
  const { model, apiKey } = settings;
  return {
    env: apiKey ? "REMOTE" : "LOCAL",
    ...(apiKey ? { apiKey } : {}),
    ...(model ? { model } : {}),
    localBrowserLaunchOptions: {
      headless: !settings.headful,
      args: settings.browserArgs,
      ...(settings.executablePath ? { executablePath: settings.executablePath } : {}),
    },
    ...(settings.egress && !apiKey ? { egress: {} } : {}),
    verbose: settings.verbose,
    // Stdout is the protocol's: every line goes to the logger's receiver (stderr) instead.
    disablePino: true,
  };
}

/** `--help`: every setting with its variable and flag, from the schema. */
export function helpText(): string {
  const lines = [
    "wayfarer-mcp: an MCP server over stdio; a Wayfarer browser for the calling model.",
    "Settings (a flag wins over its variable):",
  ];
  for (const key of KEYS) {
    const { env, flag } = settingSource(key);
    const description = z.globalRegistry.get(McpSettingsSchema.shape[key])?.description ?? "";
    lines.push(`  ${[flag, env].filter(Boolean).join(", ")}`, `      ${description}`);
  }
  lines.push("Reference: docs/reference/mcp.md");
  return `${lines.join("\n")}\n`;
}
