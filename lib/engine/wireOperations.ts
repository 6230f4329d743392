/**
 * Operations run on the other side of a transport of strings: each request goes out as JSON
 * text, and the answer comes back as v1 frames — log lines (into this client's logger), model
 * usage (into its metrics), agent events, then the result or an error rebuilt as its class.
 * Nothing crosses by reference. What cannot be written as data is refused by name.
 */
import type { z } from "zod";
import { markCacheStatus } from "../api/cacheStatus.js";
import { fromWireError } from "../api/errors.js";
import {
  type ActRequest,
  type ActResult,
  ActResultSchema,
  type AgentExecuteRequest,
  type AgentReplayRequest,
  type AgentReplayResult,
  AgentReplayResultSchema,
  AgentResultSchema,
  type ElementIdentity,
  type ExtractRequest,
  ExtractResultSchema,
  type IdentifyRequest,
  IdentifyResultSchema,
  type ObserveRequest,
  ObserveResultSchema,
  type OperationCall,
} from "../api/operations.js";
import { StreamFrameSchema } from "../api/v1.js";
import { ExportedEntrySchema } from "../cache/cacheEntry.js";
import { ServiceError, ServiceValidationError } from "../errors.js";
import type { Logger } from "../log.js";
import type { MetricsRecorder } from "../metrics.js";
import { type Action, parseInput } from "../options.js";
import type { AgentControl, AgentExecuteAnswer, OperationControl, Operations } from "./engine.js";

/** What a `finished` frame carries: the result, an agent run's cache entry, a cache answer. */
type Finished = { result?: unknown; cacheEntry?: unknown; cacheHit?: boolean };

/** Sends one operation call as JSON text and yields the frames of its answer, as JSON texts. */
export type Transport = (call: string, signal?: AbortSignal) => AsyncIterable<string>;

export class WireOperations implements Operations {
  constructor(
    private readonly transport: Transport,
    private readonly sink: { logger: Logger; metrics: MetricsRecorder },
  ) {}

  act(request: ActRequest, control: OperationControl = {}): Promise<ActResult> {
    return this.call({ operation: "act", request }, ActResultSchema, control);
  }

  observe(request: ObserveRequest, control: OperationControl = {}): Promise<Action[]> {
    return this.call({ operation: "observe", request }, ObserveResultSchema, control);
  }

  extract(request: ExtractRequest, control: OperationControl = {}): Promise<unknown> {
    return this.finish({ operation: "extract", request }, control, (data) =>
      // A service's cache answer is told beside the result (HIT or MISS).
      markCacheStatus(
        parseInput(ExtractResultSchema, data.result, "extract result"),
        data.cacheHit,
      ),
    );
  }

  identify(request: IdentifyRequest): Promise<(ElementIdentity | null)[]> {
    return this.call({ operation: "identify", request }, IdentifyResultSchema);
  }

  agentReplay(request: AgentReplayRequest, signal?: AbortSignal): Promise<AgentReplayResult> {
    return this.call({ operation: "agentReplay", request }, AgentReplayResultSchema, { signal });
  }

  agentExecute(request: AgentExecuteRequest, control: AgentControl): Promise<AgentExecuteAnswer> {
    if (control.onSafetyCheck) {
      return Promise.reject(
        new ServiceValidationError("agent.execute.onSafetyCheck", [
          {
            path: [],
            message:
              "a function cannot cross to a remote browser: leave onSafetyCheck out (safety checks then stop the run)",
          },
        ]),
      );
    }
    return this.finish({ operation: "agentExecute", request }, control, (data) => ({
      result: parseInput(AgentResultSchema, data.result, "agentExecute result"),
      cacheEntry: this.entryOf(data.cacheEntry),
    }));
  }

  /** A cache entry of another version or shape is a miss, never a failed run. */
  private entryOf(raw: unknown) {
    if (raw === undefined) return undefined;
    const parsed = ExportedEntrySchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    this.sink.logger.warn(
      "cache",
      "ignored a cache entry the service sent that is not one of ours",
    );
    return undefined;
  }

  private call<S extends z.ZodType>(
    call: OperationCall,
    result: S,
    control: AgentControl = {},
  ): Promise<z.output<S>> {
    return this.finish(call, control, (data) =>
      parseInput(result, data.result, `${call.operation} result`),
    );
  }

  private async finish<T>(
    call: OperationCall,
    control: AgentControl,
    read: (data: Finished) => T,
  ): Promise<T> {
    const frames = this.transport(JSON.stringify(call), control.signal);
    for await (const text of frames) {
      const frame = parseInput(StreamFrameSchema, parseJson(text), `${call.operation} answer`);
      if (frame.type === "log") {
        const { message, usage, event } = frame.data;
        // A frame that carries usage or an event has a line only for clients that read no more.
        if (!usage && !event) this.sink.logger.relay(message);
        if (usage) {
          const { operation, ...figures } = usage;
          this.sink.metrics.add(operation, figures);
        }
        if (event) control.onEvent?.(event);
        continue;
      }
      if (frame.data.status === "finished") return read(frame.data);
      if (frame.data.status === "error") {
        throw fromWireError(
          frame.data.errorDetail ?? {
            name: "ServiceError",
            code: ServiceError.code,
            message: frame.data.error,
          },
        );
      }
    }
    throw new ServiceError(`${call.operation}: the answer ended without a result or an error.`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ServiceError(`The answer was not JSON: ${text.slice(0, 200)}`);
  }
}
