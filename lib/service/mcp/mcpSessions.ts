/**
 * The MCP sessions of this instance, by id, each owning one service session: the MCP session id
 * IS the service session's id (`<instance>.<uuid>` in shared mode, so any instance routes it).
 * An MCP session lives as long as its service session: ended by DELETE /mcp, by the service
 * (idle, /end, the watchdog, shutdown), its transport closes with it. Loaded on the first /mcp
 * request (routes/mcp.ts): the SDK costs a service that never sees one nothing at start.
 */
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Logger } from "../../log.js";
import type { McpOptions } from "../../mcp/host.js";
import { buildMcpServer } from "../../mcp/server.js";
import type { AddressRule } from "../../net/addressRule.js";
import type { Session } from "../session.js";
import type { Sessions } from "../sessions.js";
import { sessionHost } from "./sessionHost.js";
import type { McpStart } from "./startInit.js";

/** The longest one tool call may take (the agent's runs are bounded by their steps), as `npm run mcp`'s default. */
const TOOL_TIMEOUT_MS = 30_000;
/** The agent tool's steps when the call names none, as `npm run mcp`'s default. */
const AGENT_MAX_STEPS = 20;

export interface McpEntry {
  transport: StreamableHTTPServerTransport;
  session: Session;
}

export class McpSessions {
  private readonly open = new Map<string, McpEntry>();

  constructor(
    private readonly sessions: Sessions,
    private readonly rule: AddressRule,
    private readonly answered: McpOptions["answered"],
  ) {}

  /** The MCP session `id` of `project`; another project's is none, as an unknown one. */
  find(id: string, project: string): McpEntry | undefined {
    const entry = this.open.get(id);
    return entry && entry.session.project === project && !entry.session.isEnded ? entry : undefined;
  }

  /**
   * Starts the service session first (its refusals, a quota or a full service, are the caller's
   * answer), then the MCP server on it, with a transport that takes the session's id at the
   * initialize it is handed next. Until that initialize succeeds the session is not listed.
   */
  async start({ init, variables }: McpStart): Promise<McpEntry> {
    const { StreamableHTTPServerTransport: Transport } = await import(
      "@modelcontextprotocol/sdk/server/streamableHttp.js"
    );
    const session = await this.sessions.start(init);
    try {
      // Painted over in the dashboard's pictures, shown as their %name% in its text.
      session.rememberValues(variables);
      const logger = new Logger({
        verbose: 0,
        disablePino: true,
        // The session's journal keeps what its operations did; the MCP layer's lines add nothing.
        logger: () => {},
        secrets: [...init.secrets, init.modelApiKey],
      });
      const server = await buildMcpServer(sessionHost(session, this.rule), {
        variables,
        toolTimeoutMs: TOOL_TIMEOUT_MS,
        agentMaxSteps: AGENT_MAX_STEPS,
        logger,
        answered: this.answered,
      });
      const transport: StreamableHTTPServerTransport = new Transport({
        sessionIdGenerator: () => session.id,
        onsessioninitialized: (id) => {
          this.open.set(id, entry);
        },
        // DELETE /mcp: the session and its browser end (its end closes the transport).
        onsessionclosed: (id) => this.sessions.end(id, session.project).catch(() => {}),
      });
      const entry: McpEntry = { transport, session };
      session.onEnd(() => {
        if (this.open.get(session.id) === entry) this.open.delete(session.id);
        void server.close().catch(() => {});
      });
      await server.connect(transport);
      return entry;
    } catch (error) {
      await this.sessions.end(session.id, session.project).catch(() => {});
      throw error;
    }
  }

  /** An entry whose initialize failed (a bad Accept, say): its session ends, nothing stays. */
  async abandon(entry: McpEntry): Promise<void> {
    if (this.open.get(entry.session.id) === entry) return;
    await this.sessions.end(entry.session.id, entry.session.project).catch(() => {});
  }

  get size(): number {
    return this.open.size;
  }
}

/** A JSON-RPC `initialize` request (the only message that may come without a session id). */
export function isInitialize(body: unknown): boolean {
  const message = body as { jsonrpc?: unknown; method?: unknown } | undefined;
  return message?.jsonrpc === "2.0" && message.method === "initialize";
}
