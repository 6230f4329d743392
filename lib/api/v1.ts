/**
 * The v1 wire's envelopes (DESIGN.md, "Wire protocol v1"): a JSON answer is
 * `{success: true, data}` or `{success: false, message, error}`; a streamed answer is a series of
 * frames `{id, type: "system" | "log", data}` ending with `finished` or `error`. Existing v3
 * clients read `message` and the string `error` of an error frame; the structure that rebuilds
 * the error class rides beside it (`error` object of a JSON failure, `errorDetail` of a frame).
 * Log frames may carry what a v3 client does not know and ignores: an agent's `event`, a model
 * call's `usage`.
 */
import { z } from "zod";
import { type LogLevel, LogLevelSchema } from "../log.js";
import { NavigationOptionsSchema, V3OptionsSchema } from "../options.js";
import { WireErrorSchema } from "./errors.js";
import { nestedAtMost } from "./nesting.js";
import {
  ActRequestSchema,
  AgentEventSchema,
  AgentExecuteRequestSchema,
  ExtractRequestSchema,
  FrameIdSchema,
  ObserveRequestSchema,
} from "./operations.js";
import { BrowserConfigSchema } from "./startBrowser.js";

export const SuccessBodySchema = z.looseObject({ success: z.literal(true), data: z.unknown() });

export const FailureBodySchema = z.looseObject({
  success: z.literal(false),
  message: z.string(),
  error: WireErrorSchema.optional(),
});

/** One model call's usage, filed under the operation group it counts for. */
export const UsageSchema = z.strictObject({
  operation: z.enum(["act", "extract", "observe", "agent"]),
  promptTokens: z.number(),
  completionTokens: z.number(),
  reasoningTokens: z.number(),
  cachedInputTokens: z.number(),
  inferenceTimeMs: z.number(),
});
export type WireUsage = z.infer<typeof UsageSchema>;

/** A log line as frames carry it: the client's logger receives it as its own. */
export const WireLogLineSchema = z.looseObject({
  category: z.string(),
  message: z.string(),
  level: LogLevelSchema,
  auxiliary: z.record(z.string(), z.unknown()).optional(),
});

export const StreamFrameSchema = z.union([
  z.looseObject({
    id: z.string(),
    type: z.literal("system"),
    data: z.looseObject({ status: z.enum(["starting", "connected"]) }),
  }),
  z.looseObject({
    id: z.string(),
    type: z.literal("system"),
    data: z.looseObject({
      status: z.literal("finished"),
      result: z.unknown(),
      cacheHit: z.boolean().optional(),
      /** agentExecute with `shouldCache`: `{cacheKey, entry}` for the client's cache. */
      cacheEntry: z.unknown().optional(),
    }),
  }),
  z.looseObject({
    id: z.string(),
    type: z.literal("system"),
    data: z.looseObject({
      status: z.literal("error"),
      error: z.string(),
      errorDetail: WireErrorSchema.optional(),
    }),
  }),
  z.looseObject({
    id: z.string(),
    type: z.literal("log"),
    data: z.looseObject({
      status: z.literal("running"),
      message: WireLogLineSchema,
      event: AgentEventSchema.optional(),
      usage: UsageSchema.optional(),
    }),
  }),
]);
export type StreamFrame = z.infer<typeof StreamFrameSchema>;

/** `x-stream-response: true` (which wins) or this field asks for frames instead of one answer. */
const StreamResponse = z.boolean().optional();

/**
 * A page as v1 clients name it: the reference reads an empty or null frameId as the active page
 * (its own test suite sends `""`; the Python SDK sends `null`).
 */
const WireFrameId = z
  .union([FrameIdSchema, z.literal(""), z.null()])
  .optional()
  .transform((frameId) => frameId || undefined)
  .describe("The page: its main frame's id. The active page when absent, empty or null.");

/** `POST /v1/sessions/start`; the model key comes in the `x-model-api-key` header. */
export const StartBodySchema = z.looseObject({
  modelName: z.string().optional(),
  // The reference takes any number (a fractional one is rounded) and verbose as "0"/"1"/"2" too.
  domSettleTimeoutMs: z.number().min(0).transform(Math.round).optional(),
  verbose: z
    .union([LogLevelSchema, z.enum(["0", "1", "2"]).transform((v) => Number(v) as LogLevel)])
    .optional(),
  systemPrompt: z.string().optional(),
  selfHeal: z.boolean().optional(),
  useTouch: z.boolean().optional(),
  // Its userMetadata is kept and shown back: nested no deeper than any caller JSON may be.
  browserbaseSessionCreateParams: z
    .record(z.string(), z.unknown())
    .superRefine(nestedAtMost())
    .optional(),
  browserbaseSessionID: z.string().min(1).optional(),
  browser: BrowserConfigSchema.optional(),
  /** Ours, optional on the wire: how the session reads pages and spends, as the client would. */
  wayfarer: z
    .strictObject({
      outlineTokenBudget: V3OptionsSchema.shape.outlineTokenBudget,
      maxChunksPerCall: V3OptionsSchema.shape.maxChunksPerCall,
      tokenCap: V3OptionsSchema.shape.tokenCap,
      // "leave": the client settles dialogs over its own connection (its handler).
      dialogs: z.enum(["dismiss", "accept", "leave"]),
    })
    .partial()
    .optional(),
});

/** Its `data`: a service that cannot take the session says so with an error status instead. */
export const StartDataSchema = z.looseObject({
  sessionId: z.string().min(1),
  cdpUrl: z.string().optional(),
  available: z.boolean(),
  // Ours, optional on the wire: the session's live dashboard (a read-only token in the fragment).
  sessionUrl: z.string().optional(),
  debugUrl: z.string().optional(),
});

export const NavigateBodySchema = z.strictObject({
  url: z.string().min(1),
  options: NavigationOptionsSchema,
  frameId: WireFrameId,
  streamResponse: StreamResponse,
});

const onTheWire = { frameId: WireFrameId, streamResponse: StreamResponse };
export const ActBodySchema = ActRequestSchema.extend(onTheWire);
export const ObserveBodySchema = ObserveRequestSchema.extend(onTheWire);
export const ExtractBodySchema = ExtractRequestSchema.extend(onTheWire);

/** The reference's AgentExecuteRequest: `shouldCache` asks for an entry. */
export const AgentExecuteBodySchema = AgentExecuteRequestSchema.extend(onTheWire);

const EXECUTE_OPTION_KEYS = new Set(
  Object.keys(AgentExecuteRequestSchema.shape.executeOptions.shape),
);

/**
 * The reference drops keys of `executeOptions` it does not know (its own suite sends `frameId`
 * there): they are taken out of `body` before it is parsed, and named for the session's log.
 */
export function dropUnknownExecuteOptions(body: unknown): string[] {
  const options = (body as { executeOptions?: unknown } | null)?.executeOptions;
  if (!options || typeof options !== "object" || Array.isArray(options)) return [];
  const unknown = Object.keys(options).filter((key) => !EXECUTE_OPTION_KEYS.has(key));
  for (const key of unknown) delete (options as Record<string, unknown>)[key];
  return unknown;
}

/**
 * Counts the reference takes as any number (`z.number()`) and the service in whole units: a
 * fractional one (a client's float arithmetic, `30000.5`) is rounded in `body` before it is
 * parsed, as `domSettleTimeoutMs` is at the start. Anything else is left to the schema.
 */
const WHOLE_NUMBERS = [
  ["options", "timeout"],
  ["executeOptions", "maxSteps"],
] as const;

export function roundWholeNumbers(body: unknown): void {
  for (const [outer, inner] of WHOLE_NUMBERS) {
    const holder = (body as Record<string, unknown> | null)?.[outer];
    if (!holder || typeof holder !== "object" || Array.isArray(holder)) continue;
    const value = (holder as Record<string, unknown>)[inner];
    if (typeof value === "number" && Number.isFinite(value) && !Number.isInteger(value)) {
      (holder as Record<string, unknown>)[inner] = Math.round(value);
    }
  }
}

/** `POST /v1/sessions/{id}/end` takes no body (the reference refuses one with keys). */
export const EndBodySchema = z
  .unknown()
  .refine(
    (body) =>
      body === undefined ||
      body === null ||
      (typeof body === "object" && !Array.isArray(body) && Object.keys(body).length === 0),
    { error: "Request body must be empty" },
  );

/** `GET /v1/sessions/{id}/replay`'s data: each call's method and usage, for the client's metrics. */
export const ReplayDataSchema = z.looseObject({
  pages: z.array(
    z.looseObject({
      /** The reference's page fields (older services of ours answer without them). */
      url: z.string().optional(),
      timestamp: z.number().optional(),
      duration: z.number().optional(),
      actions: z.array(
        z.looseObject({
          method: z.string(),
          parameters: z.record(z.string(), z.unknown()).optional(),
          result: z.record(z.string(), z.unknown()).optional(),
          timestamp: z.number().optional(),
          endTime: z.number().optional(),
          tokenUsage: z
            .looseObject({
              inputTokens: z.number().optional(),
              outputTokens: z.number().optional(),
              reasoningTokens: z.number().optional(),
              cachedInputTokens: z.number().optional(),
              timeMs: z.number().optional(),
            })
            .optional(),
        }),
      ),
    }),
  ),
});
