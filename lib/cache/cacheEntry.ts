/**
 * What a cache entry holds: the call it answers (its key and the key's parts), and what to do
 * again without the model — each performed Action with the identity its element had (role,
 * accessible name, and the context that told it apart from look-alikes), so that a replay acts
 * only on the same element.
 */
import { z } from "zod";
import { ElementIdentitySchema } from "../api/operations.js";
import { ActionSchema } from "../options.js";

/** Raised when the entry's shape changes: an entry of another version is a miss. */
export const CACHE_ENTRY_VERSION = 1;

export const CachedStepSchema = z.strictObject({
  action: ActionSchema,
  identity: ElementIdentitySchema.optional(),
});
export type CachedStep = z.infer<typeof CachedStepSchema>;

export const CacheEntrySchema = z.strictObject({
  version: z.literal(CACHE_ENTRY_VERSION),
  key: z.string().min(1),
  method: z.enum(["act", "observe", "agent"]),
  createdAt: z.string(),
  /** What went into the key (instruction, URL, variable names, options, model signature). */
  parts: z.record(z.string(), z.unknown()),
  steps: z.array(CachedStepSchema),
  /** An agent run's final message, returned by its replay. */
  message: z.string().optional(),
});
export type CacheEntry = z.infer<typeof CacheEntrySchema>;

/** How an entry leaves one cache and enters another (the service's `shouldCache` answer). */
export const ExportedEntrySchema = z.strictObject({
  cacheKey: z.string().min(1),
  entry: CacheEntrySchema,
});
export type ExportedEntry = z.infer<typeof ExportedEntrySchema>;
