/**
 * What the client drives. The environment is chosen once, when the client is built, by picking
 * an implementation of this interface; no method ever tests for it again.
 */
import type { Agent } from "../agent/agent.js";
import type { Context } from "../browser/context.js";
import type { ActResult } from "../handlers/act.js";
import type { ExtractCall } from "../handlers/extractCall.js";
import type { Action, ActOptions, AgentConfig, ObserveOptions } from "../options.js";

/** act, extract, observe and agent, as the environment runs them. */
export interface Operations {
  extract(context: Context, call: ExtractCall): Promise<unknown>;
  observe(context: Context, instruction?: string, options?: ObserveOptions): Promise<Action[]>;
  act(context: Context, input: string | Action, options?: ActOptions): Promise<ActResult>;
  agent(config: AgentConfig | undefined, context: () => Context): Agent<boolean>;
}

export interface Engine {
  /** The AI-driven operations, run where this environment runs them. */
  readonly operations: Operations;
  /** Launches or attaches, and opens the first page. */
  init(): Promise<Context>;
  /** Ends the browser, or with keepAlive lets go of it. `force` skips the graceful path. */
  close(options: { force: boolean }): Promise<void>;
  /** CDP URL through which this browser can be attached to again. */
  readonly connectURL: string | undefined;
  /** PID of a browser process this client launched. */
  readonly browserPid: number | undefined;
  readonly sessionId: string | undefined;
  readonly sessionUrl: string | undefined;
  readonly debugUrl: string | undefined;
}
