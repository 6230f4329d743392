/**
 * What keeps a run from going astray, as the strongest agents do: a note when few steps are
 * left and only `done` on the last one; a nudge, then a stop, when the model makes the same
 * call again and again while the page stays as it was; and a stop after too many failing
 * tool calls in a row. Each is plain bookkeeping the loop consults; none calls a model.
 */
import type { ToolCallRequest } from "../model/modelClient.js";
import type { AgentTool } from "./tools/defineTool.js";

/** A note goes in when this many steps are left, the current one included. */
export const STEPS_LOW = 3;
/** The same call on an unchanged page this many times: the model is told it is going round. */
export const LOOP_NUDGE = 3;
/** …and this many times: the run stops (`stoppedBy: "loop"`). */
export const LOOP_STOP = 4;
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 5;

/**
 * The note the model reads before `step`, when steps run low; none for a one-step run. `done`:
 * whether the run has a done tool (cua's model finishes by answering in words).
 */
export function stepNote(step: number, maxSteps: number, done: boolean): string | undefined {
  if (maxSteps <= 1) return undefined;
  if (step === maxSteps) {
    const how = done ? "only done is offered. Call done now" : "answer now, in words,";
    return `This is the last step (maxSteps ${maxSteps}): ${how} with what you have: the answer, or how far you got and what is left.`;
  }
  if (step > 1 && maxSteps - step + 1 === STEPS_LOW) {
    return `${STEPS_LOW} steps are left, this one included (maxSteps ${maxSteps}). If the task cannot be finished in them, call done with what you have.`;
  }
  return undefined;
}

/** The tools offered at `step`: on the last step of a longer run, only done (when there is one). */
export function toolsAt(tools: AgentTool[], step: number, maxSteps: number): AgentTool[] {
  if (maxSteps <= 1 || step < maxSteps) return tools;
  const done = tools.filter((t) => t.name === "done");
  return done.length ? done : tools;
}

export type RepeatVerdict = { nudge: string } | { stop: string } | undefined;

/**
 * Counts calls made again with the same input that changed nothing: the page before the call is
 * as it was after the previous identical call (nothing else moved it in between), and the call
 * left it so. The page is read only around a call made before, so a run that never repeats
 * itself never pays for it. A call that only reads (outline, extract, think) changes nothing by
 * itself: it repeats when no call that may change the page was made since the previous
 * identical one and it did not find the page changed (outline), with no look of its own.
 */
export class Repeats {
  /** Call → the page after it was last made (undefined: not read). */
  private readonly lastAfter = new Map<string, string | undefined>();
  /** Call → times made in a row that changed nothing (1: the first). */
  private readonly times = new Map<string, number>();
  /** The page after the latest call, when it was read: the page before the next one. */
  private latest: string | undefined;
  /** Calls made so far that may change the page; a read-only call → that count when made. */
  private moves = 0;
  private readonly movesAt = new Map<string, number>();

  constructor(private readonly pageState: () => Promise<string | undefined>) {}

  /** The page before a call that may change it, when it was made before (else undefined). */
  async before(call: ToolCallRequest, readOnly: boolean): Promise<string | undefined> {
    if (readOnly || !this.lastAfter.has(keyOf(call))) return undefined;
    return this.latest ?? (await this.pageState());
  }

  /** A call the check does not look at (its effect may show only in pixels). */
  skipped(): undefined {
    this.latest = undefined;
    this.moves++;
    return undefined;
  }

  /** After a call that only reads the page; `sawChange`: it found the page changed since. */
  afterReading(call: ToolCallRequest, sawChange: boolean): RepeatVerdict {
    const key = keyOf(call);
    const same = this.movesAt.get(key) === this.moves && !sawChange;
    this.movesAt.set(key, this.moves);
    return this.count(call, key, same);
  }

  /** After a call that may change the page; `before`: the page before it, from `before()`. */
  async after(call: ToolCallRequest, before: string | undefined): Promise<RepeatVerdict> {
    const key = keyOf(call);
    const previous = this.lastAfter.get(key);
    this.moves++;
    const now = before === undefined ? undefined : await this.pageState();
    this.lastAfter.set(key, now);
    this.latest = now;
    const changedNothing =
      before !== undefined && now === before && (previous === undefined || previous === before);
    return this.count(call, key, changedNothing);
  }

  private count(call: ToolCallRequest, key: string, changedNothing: boolean): RepeatVerdict {
    const times = changedNothing ? (this.times.get(key) ?? 1) + 1 : 1;
    this.times.set(key, times);
    if (times >= LOOP_STOP) {
      return {
        stop: `Stopped: the agent called ${call.toolName} with the same input ${times} times and the page did not change; it was going round in circles.`,
      };
    }
    if (times >= LOOP_NUDGE) {
      return {
        nudge: `Note: you have made this same call ${times} times and the page has not changed. It is not working: do something else, or call done if the task cannot be done.`,
      };
    }
    return undefined;
  }
}

/** Tool calls failing one after another: the run ends at the cap. */
export class FailureStreak {
  private inARow = 0;

  constructor(private readonly max: number) {}

  /** The stop message once `max` calls in a row have failed. */
  record(toolName: string, error: string | undefined): string | undefined {
    if (error === undefined) {
      this.inARow = 0;
      return undefined;
    }
    this.inARow++;
    if (this.inARow < this.max) return undefined;
    // One line: an action's result may carry a whole outline after it.
    const line = error.split("\n")[0];
    return `Stopped: ${this.inARow} tool calls in a row failed (maxConsecutiveFailures ${this.max}). The last, ${toolName}: ${line}`;
  }
}

/** A call's identity: its tool and its input, keys in order. */
function keyOf(call: ToolCallRequest): string {
  return `${call.toolName} ${stableJson(call.input)}`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
