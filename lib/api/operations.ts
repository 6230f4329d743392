/**
 * The operations as data: each request and result in a form that crosses a process boundary
 * (JSON in, JSON out). A page is named by its main frame's id, which is its CDP target id;
 * extract's schema travels as JSON Schema; what only a library caller can hand over (page
 * objects, functions, signals: the options marked `libraryOnly`) is not here. The engines speak
 * these types, the service validates with them, and the remote client sends them.
 */
import { z } from "zod";
import { ModelConfigurationSchema } from "../model/config.js";
import {
  ActionSchema,
  ActOptionsSchema,
  AgentActionSchema,
  AgentConfigSchema,
  AgentExecuteOptionsSchema,
  AgentResultSchema,
  AgentUsageSchema,
  ExtractOptionsSchema,
  ObserveOptionsSchema,
  TimeoutSchema,
  VariablesSchema,
} from "../options.js";
import { schemaWithinLimits } from "./jsonSchema.js";

export const FrameIdSchema = z
  .string()
  .min(1)
  .describe("The page: its main frame's id (its CDP target id). The active page when absent.");

const Instruction = z
  .string({ error: "expected an instruction string" })
  .trim()
  .min(1, { error: "expected an instruction, not an empty string" });

/**
 * What an element was when an action was chosen: its role, its accessible name, and the text
 * of the nearest enclosing element that tells it apart from look-alikes (the item card around
 * one of four "Add to cart" buttons). A replay acts only on an element that is still all three.
 */
export const ElementIdentitySchema = z.strictObject({
  role: z.string(),
  name: z.string(),
  context: z.string(),
});
export type ElementIdentity = z.infer<typeof ElementIdentitySchema>;

export const ActRequestSchema = z.strictObject({
  input: z.union([Instruction, ActionSchema], {
    error: "expected an instruction, or an Action from observe()",
  }),
  options: ActOptionsSchema.omit({ page: true }).optional(),
  frameId: FrameIdSchema.optional(),
  /** The action cache's: answer the identity of each element acted on. */
  identify: z.boolean().optional(),
  /** The action cache's replay: act on the Action's element only if it is still this one. */
  expect: ElementIdentitySchema.optional(),
});
export type ActRequest = z.infer<typeof ActRequestSchema>;

export const ActResultSchema = z.strictObject({
  success: z.boolean(),
  message: z.string(),
  actionDescription: z.string(),
  actions: z.array(ActionSchema),
  /** With `identify`: each action's element as it was just before it was acted on. */
  identities: z.array(ElementIdentitySchema.nullable()).optional(),
  /** With `expect`: the element was missing or another one; nothing was done. */
  mismatch: z.boolean().optional(),
});
export type ActResult = z.infer<typeof ActResultSchema>;

export const ObserveRequestSchema = z.strictObject({
  instruction: Instruction.optional(),
  options: ObserveOptionsSchema.omit({ page: true }).optional(),
  frameId: FrameIdSchema.optional(),
});
export type ObserveRequest = z.infer<typeof ObserveRequestSchema>;

export const ObserveResultSchema = z.array(ActionSchema);

/** The action cache's question: what are these elements now (none acted on)? */
export const IdentifyRequestSchema = z.strictObject({
  selectors: z.array(z.string().min(1)),
  frameId: FrameIdSchema.optional(),
  timeout: z.number().int().positive().max(600_000).optional(),
});
export type IdentifyRequest = z.infer<typeof IdentifyRequestSchema>;
/** One identity per selector, null where no single element answers it in time. */
export const IdentifyResultSchema = z.array(ElementIdentitySchema.nullable());

/** A JSON Schema object, as zod's `z.toJSONSchema` writes one. */
export const JsonSchemaSchema = z
  .record(z.string(), z.unknown())
  .superRefine(schemaWithinLimits)
  .describe("The shape of the data, as JSON Schema (draft 2020-12).");

export const ExtractRequestSchema = z.strictObject({
  instruction: Instruction.optional(),
  schema: JsonSchemaSchema.optional(),
  options: ExtractOptionsSchema.omit({ page: true }).optional(),
  frameId: FrameIdSchema.optional(),
});
export type ExtractRequest = z.infer<typeof ExtractRequestSchema>;

/** `{ pageText }` without an instruction, `{ extraction }` without a schema, else the data. */
export const ExtractResultSchema = z.unknown();

export const AgentExecuteRequestSchema = z.strictObject({
  agentConfig: AgentConfigSchema.omit({ stream: true }),
  executeOptions: AgentExecuteOptionsSchema.omit({
    signal: true,
    page: true,
    onSafetyCheck: true,
  }),
  frameId: FrameIdSchema.optional(),
  /** The reference's: record the run's replayable steps and answer them as a cache entry. */
  shouldCache: z.boolean().optional(),
});
export type AgentExecuteRequest = z.infer<typeof AgentExecuteRequestSchema>;
export { AgentResultSchema };

/**
 * One step of an agent run that a replay performs again without the model: an element action
 * (act, each field of fillForm) with the identity its element had and the words that asked for
 * it (a heal asks the model with them), or a page tool's call as the model made it.
 */
export const AgentStepSchema = z.discriminatedUnion("tool", [
  z.strictObject({
    tool: z.literal("act"),
    action: ActionSchema,
    identity: ElementIdentitySchema,
    instruction: z.string().min(1),
  }),
  z.strictObject({ tool: z.literal("goto"), input: z.strictObject({ url: z.string().min(1) }) }),
  z.strictObject({ tool: z.literal("back"), input: z.strictObject({}) }),
  z.strictObject({
    tool: z.literal("scroll"),
    input: z.strictObject({ direction: z.enum(["up", "down"]), screens: z.number().positive() }),
  }),
  z.strictObject({
    tool: z.literal("keys"),
    input: z.strictObject({ keys: z.array(z.string().min(1)).min(1) }),
    /** What had the focus, and so received the keys; null for the page itself. */
    focus: ElementIdentitySchema.nullable(),
  }),
  z.strictObject({
    tool: z.literal("wait"),
    input: z.strictObject({ seconds: z.number().positive().max(30) }),
  }),
]);
export type AgentStep = z.infer<typeof AgentStepSchema>;

/** The agent cache's replay: recorded steps performed again in order, no model call. */
export const AgentReplayRequestSchema = z.strictObject({
  steps: z.array(AgentStepSchema),
  variables: VariablesSchema.optional(),
  frameId: FrameIdSchema.optional(),
  /** The most each step may take, as a tool call's toolTimeout. */
  stepTimeout: z.lazy(() => TimeoutSchema).optional(),
  /**
   * An element step whose element is missing or another is asked for again in the words
   * recorded with it (one act call with `model`), under the same navigation rule.
   */
  heal: z.boolean().optional(),
  model: ModelConfigurationSchema.optional(),
});
export type AgentReplayRequest = z.infer<typeof AgentReplayRequestSchema>;

export const AgentReplayResultSchema = z.strictObject({
  /** How many steps, from the first, were performed. */
  performed: z.number().int().min(0),
  /** The performed steps as an agent result lists its actions. */
  actions: z.array(AgentActionSchema),
  /** The step that stopped the replay; `mismatch` when its element was missing or another. */
  stopped: z.strictObject({ message: z.string(), mismatch: z.boolean() }).optional(),
  /** Steps healed on the way (by their index in the request), as they are now. */
  healed: z.array(z.strictObject({ index: z.number().int().min(0), step: AgentStepSchema })),
  /** What the heals cost. */
  usage: AgentUsageSchema,
});
export type AgentReplayResult = z.infer<typeof AgentReplayResultSchema>;

/** What a run tells as it goes; a streaming caller reads these, the service sends them as SSE. */
export const AgentEventSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("step-start"), step: z.number() }),
  z.strictObject({ type: z.literal("text"), step: z.number(), text: z.string() }),
  z.strictObject({
    type: z.literal("tool-call"),
    step: z.number(),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
  }),
  z.strictObject({
    type: z.literal("tool-result"),
    step: z.number(),
    toolCallId: z.string(),
    toolName: z.string(),
    /** What the model reads back (an error's message when `error`). */
    output: z.string(),
    error: z.boolean(),
    timeMs: z.number(),
  }),
  z.strictObject({ type: z.literal("step-finish"), step: z.number(), usage: AgentUsageSchema }),
  z.strictObject({ type: z.literal("finish"), result: AgentResultSchema }),
  z.strictObject({ type: z.literal("error"), error: z.string() }),
]);
export type AgentEvent = z.infer<typeof AgentEventSchema>;

/** One operation as a transport carries it: its name and its request. */
export const OperationCallSchema = z.discriminatedUnion("operation", [
  z.strictObject({ operation: z.literal("act"), request: ActRequestSchema }),
  z.strictObject({ operation: z.literal("observe"), request: ObserveRequestSchema }),
  z.strictObject({ operation: z.literal("extract"), request: ExtractRequestSchema }),
  z.strictObject({ operation: z.literal("agentExecute"), request: AgentExecuteRequestSchema }),
  z.strictObject({ operation: z.literal("identify"), request: IdentifyRequestSchema }),
  z.strictObject({ operation: z.literal("agentReplay"), request: AgentReplayRequestSchema }),
]);
export type OperationCall = z.infer<typeof OperationCallSchema>;
