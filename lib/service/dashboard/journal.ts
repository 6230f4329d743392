/**
 * What a session keeps of what it did, for its dashboard and `/replay`: every operation's
 * method, timings and usage (the latest ones also what they were asked and answered), and its
 * latest log lines, numbered so a viewer asks only for new ones. Bounded: a long session keeps
 * its latest lines and details, and only the figures of older operations.
 */
import type { LogLine } from "../../log.js";
import type { OperationDetail } from "./liveOperation.js";
import type { ShownText } from "./shownText.js";

/** One call's method and usage (`/replay` reports them for the client's metrics). */
export interface CallRecord {
  method: string;
  tokenUsage: {
    inputTokens: number;
    outputTokens: number;
    reasoningTokens: number;
    cachedInputTokens: number;
    timeMs: number;
  };
}

/** One operation as the dashboard shows it: when, how long, how it ended, what it was about. */
export interface OperationRecord extends CallRecord {
  startedAt: number;
  durationMs: number;
  ok: boolean;
  /** What it was asked and answered, kept for the latest DETAILS_KEPT operations. */
  detail?: OperationDetail;
}

/** A log line the session kept for its dashboard, numbered so a viewer asks only for new ones. */
export interface KeptLine {
  seq: number;
  time: number;
  level: number;
  category: string;
  message: string;
}

/** How many of its latest log lines a session keeps for its dashboard. */
const KEPT_LINES = 500;
const KEPT_LINE_CHARS = 2_000;
/** How many of its latest operations keep what they were asked and answered. */
const DETAILS_KEPT = 100;

export class Journal {
  readonly operations: OperationRecord[] = [];
  readonly lines: KeptLine[] = [];
  private lineCount = 0;

  constructor(private readonly shown: () => ShownText) {}

  /** An operation that ended; the details of the one that falls out of the latest are dropped. */
  record(operation: OperationRecord): void {
    const older = this.operations.at(-DETAILS_KEPT);
    if (older) delete older.detail;
    this.operations.push(operation);
  }

  keep(line: LogLine): void {
    this.lines.push({
      seq: ++this.lineCount,
      time: Date.now(),
      level: line.level,
      category: line.category,
      // A debug line may carry a whole outline: the dashboard shows its start.
      message: this.shown().bounded(line.message, KEPT_LINE_CHARS),
    });
    if (this.lines.length > KEPT_LINES) this.lines.splice(0, this.lines.length - KEPT_LINES);
  }
}
