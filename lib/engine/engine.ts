/**
 * What the client drives. The environment is chosen once, when the client is built, by picking
 * an implementation of this interface; no method ever tests for it again.
 */
import type { Context } from "../browser/context.js";

export interface Engine {
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
