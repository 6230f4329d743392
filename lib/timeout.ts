/**
 * Every public wait is bounded here. The error names the public method, the limit and what it
 * waited for, plus the steps done so far.
 */
import { ServiceTimeoutError } from "./errors.js";

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface Deadline {
  readonly method: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly steps: string[];
  /** Milliseconds left, at least 1 so that it can be handed to an API that treats 0 as "no limit". */
  remaining(): number;
  step(name: string): void;
}

export async function withTimeout<T>(
  method: string,
  timeoutMs: number,
  waitingFor: string | (() => string),
  run: (deadline: Deadline) => Promise<T>,
  /**
   * `advice`: what the timeout error tells the caller to do, a sentence added to its message.
   * `signal`: the caller's; its abort ends the wait at once with its reason and aborts the
   * deadline's signal, so model calls and waits under it stop too.
   */
  options: { advice?: string; signal?: AbortSignal } = {},
): Promise<T> {
  const controller = new AbortController();
  const endsAt = Date.now() + timeoutMs;
  const steps: string[] = [];
  const deadline: Deadline = {
    method,
    timeoutMs,
    signal: controller.signal,
    steps,
    remaining: () => Math.max(1, endsAt - Date.now()),
    step: (name) => steps.push(name),
  };
  const describe = () => (typeof waitingFor === "string" ? waitingFor : waitingFor());
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ServiceTimeoutError(method, timeoutMs, describe(), steps, options);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  const caller = options.signal;
  const onCallerAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener("abort", onCallerAbort, { once: true });
  const work = run(deadline);
  try {
    return await Promise.race([work, expired, untilAborted(expired, caller)]);
  } catch (error) {
    if (isPlaywrightTimeout(error)) {
      // Playwright's own text (its call log) stays reachable as the cause, for debug logs.
      throw new ServiceTimeoutError(method, timeoutMs, describe(), steps, {
        ...options,
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener("abort", onCallerAbort);
    expired.catch(() => {});
    // A call that lost the race must not surface later as an unhandled rejection.
    work.catch(() => {});
  }
}

export function isPlaywrightTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/**
 * Waits for `work` at most `ms` (its failure counts as done), leaving no timer behind: for a
 * best-effort step that must not hold its caller. True when `work` finished in time.
 */
export async function awaitAtMost(work: Promise<unknown>, ms: number): Promise<boolean> {
  const stop = new AbortController();
  const finished = work.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([finished, sleep(ms, stop.signal).then(() => false)]);
  } finally {
    stop.abort();
  }
}

/** Resolves after `ms`, or at once when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Rejects with the signal's reason as soon as it aborts; otherwise settles like `work`. For
 * calls that would not notice on their own (a page being created in a browser just killed).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
