/**
 * The JSON loopback engine, for tests only: a client whose operations reach the local engine
 * through nothing but strings. The client half is lib/engine/wireOperations.ts (as the remote
 * environment will use it); the other half, here, plays the service: it parses each call with
 * the wire schemas, runs it on a LocalOperations configured from a JSON copy of the client's
 * options, and answers v1 frames — log lines, model usage and agent events as log frames, then
 * `finished` or `error`. The browser itself is shared in-process, as a remote client's is
 * reached over CDP; every request, result, event and error crosses as text.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { toWireError } from "../../lib/api/errors.js";
import {
  type AgentEvent,
  type OperationCall,
  OperationCallSchema,
} from "../../lib/api/operations.js";
import type { StreamFrame, WireUsage } from "../../lib/api/v1.js";
import type { Context } from "../../lib/browser/context.js";
import type { Engine, Operations } from "../../lib/engine/engine.js";
import { LocalOperations } from "../../lib/engine/localOperations.js";
import { type EngineParts, localEngine } from "../../lib/engine/select.js";
import { type Transport, WireOperations } from "../../lib/engine/wireOperations.js";
import { Logger, type LogLine } from "../../lib/log.js";
import { type MetricsGroup, MetricsRecorder, type Usage } from "../../lib/metrics.js";
import { EventChannel } from "../../lib/operations/eventChannel.js";
import { parseInput, V3OptionsSchema } from "../../lib/options.js";
import { secretsOf } from "../../lib/secrets.js";

/** A frame before its id is given. */
type FrameBody = StreamFrame extends infer F ? (F extends unknown ? Omit<F, "id"> : never) : never;

/** Where the lines and usage of the call under way go: its own frames. */
interface CallSink {
  log(line: LogLine): void;
  usage(usage: WireUsage): void;
}
const currentCall = new AsyncLocalStorage<CallSink>();

/** The service half's metrics: each model call's usage goes out in the call's frames. */
class RelayedMetrics extends MetricsRecorder {
  override add(group: Exclude<MetricsGroup, "total">, usage: Usage): void {
    currentCall.getStore()?.usage({ operation: group, ...usage });
  }
}

export function loopbackEngine(parts: EngineParts): Engine {
  // Configured from what can be written as data, as a service is: functions do not cross.
  const options = V3OptionsSchema.parse(JSON.parse(JSON.stringify(parts.options)) as unknown);
  const logger = new Logger({
    verbose: 2,
    disablePino: true,
    logger: (line) => currentCall.getStore()?.log(line),
    secrets: secretsOf(options),
  });
  let served: Operations | undefined;
  const transport: Transport = (call, signal) => answer(served!, call, signal);
  return localEngine(parts, (context: () => Context) => {
    served = new LocalOperations(options, logger, new RelayedMetrics(), context);
    return new WireOperations(transport, { logger: parts.logger, metrics: parts.records.metrics });
  });
}

/** The service half: one call's answer, as the JSON texts of its frames. */
function answer(operations: Operations, text: string, signal?: AbortSignal): AsyncIterable<string> {
  const frames = new EventChannel<string>();
  let id = 0;
  const send = (frame: FrameBody) => frames.push(JSON.stringify({ ...frame, id: String(++id) }));
  const running = (message: Omit<LogLine, "timestamp">, extra: object = {}) =>
    send({ type: "log", data: { status: "running", message, ...extra } });
  // The caller's abort reaches this side as a cancellation, not as its signal object.
  const stop = new AbortController();
  signal?.addEventListener("abort", () => stop.abort(new Error("the caller cancelled the run")), {
    once: true,
  });
  const sink: CallSink = {
    log: ({ timestamp: _t, ...line }) => running(line),
    usage: (usage) =>
      running(
        { category: "metrics", message: `${usage.operation} model usage`, level: 2 },
        { usage },
      ),
  };
  void currentCall.run(sink, async () => {
    send({ type: "system", data: { status: "starting" } });
    send({ type: "system", data: { status: "connected" } });
    try {
      const call = parseInput(OperationCallSchema, JSON.parse(text) as unknown, "operation call");
      const onEvent = (event: AgentEvent) =>
        running({ category: "agent", message: event.type, level: 2 }, { event });
      const finished = await run(operations, call, stop.signal, onEvent);
      send({ type: "system", data: { status: "finished", ...finished } });
    } catch (error) {
      const detail = toWireError(error);
      send({
        type: "system",
        data: { status: "error", error: detail.message, errorDetail: detail },
      });
    }
    frames.end();
  });
  return frames;
}

function run(
  operations: Operations,
  call: OperationCall,
  signal: AbortSignal,
  onEvent: (event: AgentEvent) => void,
): Promise<{ result: unknown; cacheEntry?: unknown }> {
  const result = (work: Promise<unknown>) => work.then((r) => ({ result: r }));
  switch (call.operation) {
    case "act":
      return result(operations.act(call.request, { signal }));
    case "observe":
      return result(operations.observe(call.request, { signal }));
    case "extract":
      return result(operations.extract(call.request, { signal }));
    // As v1 answers it: the run's result, and its cache entry beside it.
    case "agentExecute":
      return operations.agentExecute(call.request, { signal, onEvent });
    case "identify":
      return result(operations.identify(call.request));
    case "agentReplay":
      return result(operations.agentReplay(call.request, signal));
  }
}
