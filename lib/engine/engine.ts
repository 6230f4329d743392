/**
 * What the client drives. The environment is chosen once, when the client is built, by picking
 * an implementation of this interface; no method ever tests for it again. Operations speak the
 * wire types of lib/api/ only: plain data in, plain data out, a page named by its frameId. What
 * cannot be data (an abort signal, a callback) travels beside the request, as control.
 */
import type {
  ActRequest,
  ActResult,
  AgentEvent,
  AgentExecuteRequest,
  AgentReplayRequest,
  AgentReplayResult,
  ElementIdentity,
  ExtractRequest,
  IdentifyRequest,
  ObserveRequest,
} from "../api/operations.js";
import type { CdpHub } from "../browser/cdpHub.js";
import type { Context } from "../browser/context.js";
import type { ExportedEntry } from "../cache/cacheEntry.js";
import type { Action, AgentResult, SafetyCheck } from "../options.js";

/** What act, extract and observe take beside their request. */
export interface OperationControl {
  /** Ends the call at once with its reason; the model call in flight is cancelled. */
  signal?: AbortSignal;
}

/** What an agent run takes beside its request: none of it can be written as data. */
export interface AgentControl {
  /** Stops the run between steps; a model call in flight is cancelled. */
  signal?: AbortSignal;
  /** Told of each event as it happens. */
  onEvent?: (event: AgentEvent) => void;
  /** cua: asked before an action the provider raised safety checks on. */
  onSafetyCheck?: (checks: SafetyCheck[]) => boolean | Promise<boolean>;
}

/** An agent run's answer: with `shouldCache`, the entry its replay would follow (when it can). */
export interface AgentExecuteAnswer {
  result: AgentResult;
  cacheEntry?: ExportedEntry;
}

/** act, extract, observe and an agent run, as the environment runs them. */
export interface Operations {
  act(request: ActRequest, control?: OperationControl): Promise<ActResult>;
  observe(request: ObserveRequest, control?: OperationControl): Promise<Action[]>;
  /** `{ pageText }`, `{ extraction }` or the data in the request's JSON Schema. */
  extract(request: ExtractRequest, control?: OperationControl): Promise<unknown>;
  agentExecute(request: AgentExecuteRequest, control: AgentControl): Promise<AgentExecuteAnswer>;
  /** The elements' identities now, nothing acted on (the action cache's check of observe). */
  identify(request: IdentifyRequest): Promise<(ElementIdentity | null)[]>;
  /**
   * A cached agent run's steps performed again, in order, with no model call; an element
   * action only on the element recorded. Stops at the first step that cannot be done, or at
   * the caller's signal (between steps; a wait ends early).
   */
  agentReplay(request: AgentReplayRequest, signal?: AbortSignal): Promise<AgentReplayResult>;
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
  /** The folder of a browser this client launched (its profile, temp files and downloads). */
  readonly browserFolder: string | undefined;
  /** A confined browser's one way in for other CDP clients (it listens on no port). */
  readonly cdpHub: CdpHub | undefined;
  readonly sessionId: string | undefined;
  readonly sessionUrl: string | undefined;
  readonly debugUrl: string | undefined;
}
