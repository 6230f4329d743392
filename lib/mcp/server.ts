/**
 * One MCP session's server: the tools of the registry (the model-backed ones only when the host
 * has a model), its calls run one at a time on the host's browser, and every answer leaving by
 * one way: a thrown error becomes a tool error the model can read, and no answer carries a
 * variable's value or a key. The transport (stdio, Streamable HTTP) is the caller's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { McpServer, RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { scrub } from "../agent/loop.js";
import type { McpHost, McpOptions } from "./host.js";
import { errorAnswer, scrubAnswer, type ToolAnswer } from "./results.js";
import { McpSession } from "./session.js";
import { MCP_TOOLS, type McpTool } from "./tools/index.js";

/** What the calling model is told once, at initialize: how the tools fit together. */
const INSTRUCTIONS = [
  "A browser of your own. open a URL, then read the page: an outline with [id]s on what can be acted on.",
  "click, fill, type, select, press, hover and scroll act on an [id] of the latest outline you read, and answer with the outline after.",
  "An outline you already have is answered in one line; read with fresh: true if you do not have it.",
  "An id whose element changed is refused with nothing done: read again.",
  "%name% in a value types a variable of the server; you never see its value.",
].join(" ");

const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as {
    version: string;
  }
).version;

/**
 * Async: the SDK is imported with the first server, so that the service (whose bundle holds this
 * file) loads it with its first /mcp request, not at its start.
 */
export async function buildMcpServer(host: McpHost, o: McpOptions): Promise<McpServer> {
  const { McpServer: Server } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const server = new Server({ name: "wayfarer", version: VERSION }, { instructions: INSTRUCTIONS });
  const session = new McpSession(o);
  const queue = new CallQueue();
  /** One call: its turn in the queue, then the handler on the host's browser. */
  const perform = (tool: McpTool, args: Record<string, unknown>, extra: Extra) =>
    queue.run(extra.signal, () =>
      host.around(
        tool.name,
        (browser) =>
          tool.handle(
            args,
            session.toolCall(browser, {
              tool: tool.name,
              signal: extra.signal,
              checkUrl: async (url) => host.checkUrl?.(url),
              progress: progressTo(extra, o),
            }),
          ),
        extra.signal,
      ),
    );
  for (const tool of MCP_TOOLS) {
    if (tool.needsModel && !host.hasModel) continue;
    register(server, tool, async (args, extra) => {
      const result = await answer(tool, o, () => perform(tool, args, extra));
      return withNotice(result, session.takeNotice());
    });
  }
  // The host is the caller's to close (it may outlive this server: a service session); the
  // run's navigation guard is ours.
  server.server.onclose = () => void session.close();
  return server;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Handler = (args: Record<string, unknown>, extra: Extra) => Promise<CallToolResult>;

function register(server: McpServer, tool: McpTool, handler: Handler): RegisteredTool {
  return server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { title: tool.title, ...tool.annotations },
    },
    handler,
  );
}

/** The call's answer, or its error as the model reads it; scrubbed either way, never thrown. */
async function answer(
  tool: McpTool,
  o: McpOptions,
  call: () => Promise<ToolAnswer>,
): Promise<CallToolResult> {
  const started = Date.now();
  let result: ToolAnswer;
  try {
    result = await call();
  } catch (error) {
    result = errorAnswer(tool.name, error, (detail) =>
      o.logger.debug("mcp", `${tool.name} failed`, {
        detail: scrub(detail, o.variables, o.logger.redactor),
      }),
    );
  }
  const clean = scrubAnswer(result, o.variables, o.logger.redactor);
  const ms = Date.now() - started;
  o.answered?.({ tool: tool.name, isError: clean.isError === true, seconds: ms / 1000 });
  o.logger.info("mcp", `${tool.name} answered`, {
    ms,
    ...(clean.isError
      ? { error: clean.content[0]?.type === "text" ? clean.content[0].text : "" }
      : {}),
  });
  return clean as CallToolResult;
}

/** A browser replaced since the last call is said first, once. */
function withNotice(result: CallToolResult, notice: string | undefined): CallToolResult {
  if (!notice) return result;
  return { ...result, content: [{ type: "text", text: notice }, ...result.content] };
}

/** Progress notifications, sent only when the client asked for them (a progress token). */
function progressTo(extra: Extra, o: McpOptions) {
  const token = extra._meta?.progressToken;
  return (progress: number, total: number | undefined, message: string) => {
    if (token === undefined) return;
    void extra
      .sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          message: scrub(message, o.variables, o.logger.redactor),
        },
      })
      .catch(() => {});
  };
}

/**
 * Calls one at a time, in the order they came: a client may send several at once, and two
 * tools on one page would act on each other's outline. A call cancelled while it waits is not run.
 */
class CallQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(() => {
      if (signal.aborted) throw new Error("cancelled by the client before it ran");
      return work();
    });
    this.tail = turn.catch(() => {});
    return turn;
  }
}
