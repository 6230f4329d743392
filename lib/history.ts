/**
 * What the client did, in order: one entry per act, extract, observe and navigation.
 * Entries are redacted on the way in and handed out frozen.
 */
import { z } from "zod";
import type { Redactor } from "./log.js";

export const HistoryEntrySchema = z.object({
  method: z.enum(["act", "extract", "observe", "navigate"]),
  parameters: z.unknown(),
  result: z.unknown(),
  timestamp: z.string(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

export class History {
  private readonly entries: HistoryEntry[] = [];

  constructor(private readonly redactor: Redactor) {}

  record(method: HistoryEntry["method"], parameters: unknown, result: unknown): void {
    this.entries.push(
      Object.freeze({
        method,
        parameters: this.redactor.value(parameters),
        result: this.redactor.value(result),
        timestamp: new Date().toISOString(),
      }),
    );
  }

  list(): readonly HistoryEntry[] {
    return Object.freeze([...this.entries]);
  }
}
