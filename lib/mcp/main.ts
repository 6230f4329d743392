/**
 * `npm run mcp` and bin/wayfarer-mcp: the MCP server over stdio, one browser for the one client
 * that started it (LOCAL, or a service's session when WAYFARER_API_KEY is set). Stdout carries
 * the protocol and nothing else, so every line of ours goes to stderr. The client ends us by
 * closing stdin, then SIGTERM after 2 s, then SIGKILL: the browser is closed well within the
 * first, and the lifeline ends it should we be killed outright.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { armLifeline } from "../browser/lifeline.js";
import { Logger, type LogLine } from "../log.js";
import { parseInput, V3OptionsSchema } from "../options.js";
import { readableMessage } from "../readableError.js";
import { secretsOf } from "../secrets.js";
import type { McpHost } from "./host.js";
import { localHost } from "./localHost.js";
import { buildMcpServer } from "./server.js";
import {
  clientOptions,
  helpText,
  inactiveSettings,
  type McpSettings,
  readSettings,
  whereItRuns,
} from "./settings.js";

/** The most a stop waits for the browser to close before leaving it to the lifeline. */
const CLOSE_WAIT_MS = 1_200;

const say = (line: string) => process.stderr.write(`wayfarer-mcp: ${line}\n`);
// A package's console.log would corrupt the protocol: the console writes to stderr too.
for (const method of ["log", "info", "debug"] as const) {
  // biome-ignore lint/suspicious/noConsole: rerouted, not used
  console[method] = console.error;
}

let redact = (text: string) => text;
// A rejection nobody awaited (a page event after its tool answered) is told, never fatal:
// the conversation keeps its browser.
process.on("unhandledRejection", (reason) => {
  say(`unhandled rejection: ${redact(readableMessage(reason))}`);
});

function failed(error: unknown): never {
  say(redact(readableMessage(error)));
  process.exit(1);
}

let read: ReturnType<typeof readSettings>;
try {
  read = readSettings(process.argv.slice(2), process.env);
} catch (error) {
  failed(error);
}
if ("help" in read) {
  process.stdout.write(helpText());
  process.exit(0);
}
const settings: McpSettings = read;

const options = clientOptions(settings);
let made: { host: McpHost; server: McpServer };
try {
  const logger = new Logger({
    verbose: settings.verbose,
    disablePino: true,
    logger: (line: LogLine) => process.stderr.write(`${JSON.stringify(line)}\n`),
    secrets: [
      ...secretsOf(parseInput(V3OptionsSchema, options, "the MCP server's options")),
      ...Object.values(settings.variables).map((v) => String(typeof v === "object" ? v.value : v)),
    ],
  });
  redact = (text) => logger.redactor.text(text);
  // Killed outright (SIGKILL, the OOM killer), no exit hook runs: the lifeline ends our browser.
  if (options.env === "LOCAL") armLifeline();
  // The host checks the options (a REMOTE without a key, a bad browser profile) at once.
  const host = localHost({ options, logger, idleMs: settings.idleMs, maxPages: settings.maxPages });
  const server = await buildMcpServer(host, {
    variables: settings.variables,
    toolTimeoutMs: settings.toolTimeoutMs,
    agentMaxSteps: settings.agentMaxSteps,
    logger,
  });
  made = { host, server };
} catch (error) {
  failed(error);
}
const { host, server } = made;

let stopping = false;
function stop(why: string): void {
  if (stopping) return;
  stopping = true;
  say(`${why}: closing the browser`);
  const waited = new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref());
  Promise.race([host.close().catch((e: unknown) => say(redact(readableMessage(e)))), waited])
    .then(() => server.close())
    .catch(() => {})
    .finally(() => process.exit(0));
}
process.stdin.on("end", () => stop("stdin ended"));
process.stdin.on("close", () => stop("stdin closed"));
// The client went away mid-answer: nobody is left to answer.
process.stdout.on("error", () => stop("stdout closed"));
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));

await server.connect(new StdioServerTransport()).catch(failed);

const ignored = inactiveSettings(settings, process.env);
if (ignored.length) say(`ignored with WAYFARER_API_KEY (no local browser): ${ignored.join(", ")}`);
const names = Object.keys(settings.variables).map((n) => `%${n}%`);
say(
  [
    `ready on stdio; the browser: ${whereItRuns(settings)}`,
    settings.model
      ? `model ${settings.model}`
      : "no model (act, extract, observe and agent are not listed; WAYFARER_MCP_MODEL sets one)",
    names.length ? `variables ${names.join(", ")}` : "no variables",
  ].join("; "),
);
