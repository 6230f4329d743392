/**
 * The seam between the MCP tools and where their browser lives. A host is chosen once, when an
 * MCP session starts: a browser on this machine (localHost.ts, `npm run mcp`) or a session of
 * the service (lib/service/mcp/). The tools and the server never ask which one they have.
 */
import type { AgentDeps } from "../agent/agent.js";
import type { Context } from "../browser/context.js";
import type { Operations } from "../engine/engine.js";
import type { Logger } from "../log.js";
import type { Variables } from "../options.js";

/** What one tool call works with: the pages, the model-backed operations, the agent tools' deps. */
export interface HostBrowser {
  context: Context;
  operations: Operations;
  deps: AgentDeps;
}

export interface McpHost {
  /**
   * Runs one call on the browser (the MCP session queues its calls, so one at a time). A local
   * host launches its browser on the first call; the service runs it inside Session.operate.
   * `signal` is the client's cancel.
   */
  around<T>(tool: string, work: (b: HostBrowser) => Promise<T>, signal: AbortSignal): Promise<T>;
  /** A model is configured: the model-backed tools (act, extract, observe, agent) are listed. */
  readonly hasModel: boolean;
  /** The host's own address rule (the service's), checked before the browser is asked to go. */
  checkUrl?(url: string): Promise<void>;
  /** Ends the browser (or lets go of the service's session); safe to call twice. */
  close(): Promise<void>;
}

export interface McpOptions {
  /**
   * `%name%` values from the server's configuration (never from the conversation), each with
   * the origins it may be typed on.
   */
  variables: Variables;
  /** The most one tool call may take, in ms (an agent run is bounded by its steps instead). */
  toolTimeoutMs: number;
  /** The agent tool's default number of steps. */
  agentMaxSteps: number;
  logger: Logger;
  /** Told of each answered call: its tool, whether it answered a tool error, its time (the service's metrics). */
  answered?: (call: { tool: string; isError: boolean; seconds: number }) => void;
}
