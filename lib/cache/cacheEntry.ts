/**
 * What a cache entry holds: the call it answers (its key and the key's parts), and what to do
 * again without the model. act and observe entries: each Action with the identity its element
 * had (role, accessible name, and the context that told it apart from look-alikes), so that a
 * replay acts only on the same element. Agent entries: the run's replayable steps (element
 * actions with their identities, and the page tools' calls) and the message the run ended with.
 */
import { z } from "zod";
import { AgentStepSchema, ElementIdentitySchema } from "../api/operations.js";
import { ActionSchema } from "../options.js";
import type { CacheKey } from "./cacheKey.js";

/** Raised when the entry's shape changes: an entry of another version is a miss. */
export const CACHE_ENTRY_VERSION = 1;

export const CachedStepSchema = z.strictObject({
  action: ActionSchema,
  identity: ElementIdentitySchema.optional(),
});
export type CachedStep = z.infer<typeof CachedStepSchema>;

const EntryHead = {
  version: z.literal(CACHE_ENTRY_VERSION),
  key: z.string().min(1),
  createdAt: z.string(),
  /** What went into the key (instruction, URL, variable names, options, model signature). */
  parts: z.record(z.string(), z.unknown()),
};

export const ActionEntrySchema = z.strictObject({
  ...EntryHead,
  method: z.enum(["act", "observe"]),
  steps: z.array(CachedStepSchema),
});
export type ActionEntry = z.infer<typeof ActionEntrySchema>;

export const AgentEntrySchema = z.strictObject({
  ...EntryHead,
  method: z.literal("agent"),
  steps: z.array(AgentStepSchema),
  /** The run's final message, which its replay returns. */
  message: z.string(),
});
export type AgentEntry = z.infer<typeof AgentEntrySchema>;

export const CacheEntrySchema = z.discriminatedUnion("method", [
  ActionEntrySchema,
  AgentEntrySchema,
]);
export type CacheEntry = z.infer<typeof CacheEntrySchema>;

/** How an entry leaves one cache and enters another (the service's `shouldCache` answer). */
export const ExportedEntrySchema = z.strictObject({
  cacheKey: z.string().min(1),
  entry: CacheEntrySchema,
});
export type ExportedEntry = z.infer<typeof ExportedEntrySchema>;

/** A new entry for `key`. */
export function newEntry(
  key: CacheKey,
  body: Pick<ActionEntry, "method" | "steps"> | Pick<AgentEntry, "method" | "steps" | "message">,
): CacheEntry {
  return {
    version: CACHE_ENTRY_VERSION,
    key: key.value,
    createdAt: new Date().toISOString(),
    parts: key.parts,
    ...body,
  } as CacheEntry;
}
