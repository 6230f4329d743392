/**
 * The one path every act, observe and extract call takes, whatever the environment:
 * parse (the caller's input, by the public schemas) → page (a page object becomes its frameId)
 * → cache (a hook the action cache plugs into) → run (the engine, given plain data) → record
 * (history). The deadline travels in the request and the engine keeps it. Agent runs take the
 * same path in agentHandle.ts, and record no history.
 */

import { z } from "zod";
import { withCacheStatus } from "../api/cacheStatus.js";
import { jsonSchemaOf } from "../api/jsonSchema.js";
import type { ActRequest, ActResult, ExtractRequest, ObserveRequest } from "../api/operations.js";
import type { Context } from "../browser/context.js";
import type { ActionCache } from "../cache/actionCache.js";
import type { Operations } from "../engine/engine.js";
import { ServiceError, ZodSchemaValidationError } from "../errors.js";
import type { History, HistoryEntry } from "../history.js";
import type { Redactor } from "../log.js";
import {
  type Action,
  ActionSchema,
  type ActOptions,
  ActOptionsSchema,
  ExtractOptionsSchema,
  type ObserveOptions,
  ObserveOptionsSchema,
  parseInput,
} from "../options.js";
import { modelSecrets } from "../secrets.js";
import type { ExtractCall } from "./extractCall.js";

type Method = Exclude<HistoryEntry["method"], "navigate">;

const ActInstruction = z
  .string()
  .trim()
  .min(1, { error: "expected an instruction, or an Action from observe()" });
const ObserveInstruction = z
  .string({ error: "expected an instruction string" })
  .trim()
  .min(1, { error: "expected an instruction, not an empty string" })
  .optional();

export interface OperationPathDeps {
  operations: Operations;
  /** The client's pages; throws when init() has not finished or close() was called. */
  ready(method: string): Context;
  history: History;
  /** Learns a call's own model credentials before anything records the call. */
  redactor: Redactor;
  /** With `cacheDir`: act replays recorded actions without the model. */
  cache?: ActionCache;
}

export class OperationPath {
  constructor(private readonly deps: OperationPathDeps) {}

  async act(input: string | Action, rawOptions: ActOptions | undefined): Promise<ActResult> {
    const context = this.deps.ready("act");
    const { page, ...options } =
      parseInput(ActOptionsSchema.optional(), rawOptions, "act.options") ?? {};
    this.learnSecrets(options.model);
    const given =
      typeof input === "string"
        ? parseInput(ActInstruction, input, "act.instruction")
        : parseInput(ActionSchema, input, "act.action");
    const request: ActRequest = {
      input: given,
      options,
      frameId: await frameIdOf(context, page),
    };
    const recorded = {
      ...(typeof input === "string" ? { instruction: input } : { action: input }),
      ...withVariableNames(options),
    };
    const { cache } = this.deps;
    if (!cache) return this.run("act", () => this.deps.operations.act(request), recorded);
    const on = page ? context.pageOf(page) : context.activePage();
    const answer = await cache.act(request, on?.url() ?? "", (r) => this.deps.operations.act(r));
    this.deps.history.record(
      "act",
      recorded,
      answer.cacheHit ? { ...answer.result, cacheHit: true } : answer.result,
    );
    return answer.result;
  }

  async observe(
    instruction: string | undefined,
    rawOptions: ObserveOptions | undefined,
  ): Promise<Action[]> {
    const context = this.deps.ready("observe");
    parseInput(ObserveInstruction, instruction, "observe.instruction");
    const { page, ...options } =
      parseInput(ObserveOptionsSchema.optional(), rawOptions, "observe.options") ?? {};
    this.learnSecrets(options.model);
    const request: ObserveRequest = {
      instruction,
      options,
      frameId: await frameIdOf(context, page),
    };
    const recorded = { instruction, ...withVariableNames(options) };
    const { cache, operations } = this.deps;
    if (!cache) return this.run("observe", () => operations.observe(request), recorded);
    const on = page ? context.pageOf(page) : context.activePage();
    const answer = await cache.observe(
      request,
      on?.url() ?? "",
      (r) => operations.observe(r),
      (r) => operations.identify(r),
    );
    // The answer is a list: whether it came from the cache is told with the call's parameters.
    this.deps.history.record(
      "observe",
      answer.cacheHit ? { ...recorded, cacheHit: true } : recorded,
      answer.result,
    );
    return answer.result;
  }

  async extract(call: ExtractCall): Promise<unknown> {
    const context = this.deps.ready("extract");
    const { page, ...options } =
      parseInput(ExtractOptionsSchema.optional(), call.options, "extract.options") ?? {};
    this.learnSecrets(options.model);
    const { instruction, schema } = call;
    const request: ExtractRequest = {
      instruction,
      schema: schema === undefined ? undefined : jsonSchemaOf(schema),
      options,
      frameId: await frameIdOf(context, page),
    };
    return this.run(
      "extract",
      () => this.deps.operations.extract(request),
      { instruction, ...options },
      (data) => withCacheStatus(data, checked(data, schema)),
    );
  }

  /** A per-call model's key, URL credentials and credential headers, for the redactor. */
  private learnSecrets(model: unknown): void {
    for (const secret of modelSecrets(model)) this.deps.redactor.add(secret);
  }

  /**
   * The engine's plain answer, finished for the caller (an extraction parsed by its own
   * schema); history records what the caller got.
   */
  private async run<R, T = R>(
    method: Method,
    work: () => Promise<R>,
    recorded: Record<string, unknown>,
    finish: (answer: R) => T = (answer) => answer as unknown as T,
  ): Promise<T> {
    const result = finish(await work());
    this.deps.history.record(method, recorded, result);
    return result;
  }
}

/** The caller's data parsed by its own schema: its transforms run here, once. */
function checked(data: unknown, schema: z.ZodType | undefined): unknown {
  if (!schema) return data;
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw new ZodSchemaValidationError(
    data,
    result.error.issues.map((i) => ({ path: i.path, message: i.message })),
  );
}

/** Only the variables' names are recorded: their values may be secrets. */
function withVariableNames<O extends { variables?: Record<string, unknown> }>(options: O) {
  const { variables, ...rest } = options;
  return { ...rest, variables: variables ? Object.keys(variables) : undefined };
}

/** The frameId of the page a call names (ours, or the Playwright page under one of ours). */
export async function frameIdOf(
  context: Context,
  given: object | undefined,
): Promise<string | undefined> {
  if (given === undefined) return undefined;
  const found = context.pageOf(given);
  if (!found) {
    throw new ServiceError(
      "options.page is not an open page of this client: pass one of client.context.pages().",
    );
  }
  return found.frameId();
}
