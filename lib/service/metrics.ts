/**
 * The service's Prometheus metrics (docs/guide/operations.md): one registry per service, so a
 * process may hold several (the tests do), and the instruments the service's hooks feed, each
 * through one call here. Labels stay bounded: a method is a route's, a code an error class's, a
 * limit a variable's name, a project one of the operator's; never a session id, a URL or
 * anything a caller typed.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { toWireError } from "../api/errors.js";
import { ServiceTimeoutError } from "../errors.js";
import type { Usage } from "../metrics.js";
import type { SpendGuard } from "../model/modelClient.js";
import { isPlaywrightTimeout } from "../timeout.js";
import type { ServerCacheStore } from "./serverCache.js";

/** What the gauges read when scraped. */
export interface Observed {
  sessions: {
    readonly size: number;
    readonly room: number;
    readonly capacity: number;
    /** Warm browsers waiting for a session (WAYFARER_WARM_BROWSERS). */
    readonly warm: number;
    all(): readonly { readonly browserPid: number | undefined }[];
  };
  /** CDP connections open through the service's proxy. */
  cdpConnections(): number;
  /** Shared mode: the other live instances, as their last heartbeats said. */
  peers?: () => readonly { room: number }[];
}

/** How an answered request went, for the metrics and the service's log. */
export interface Answered {
  method: string | undefined;
  status: number;
  outcome: Outcome;
  /** The failure's code (`HTTP_<status>` when no error was noted); undefined for a success. */
  code: string | undefined;
  error: unknown;
  seconds: number;
}

type Outcome = "ok" | "caller_error" | "failed" | "timeout";

/** 50 ms (a cache HIT, a refusal) to a minute (an agent's run); slower ones land in +Inf. */
const SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

/** A request's failure, noted where it became an answer (its status when a stream's 200 hides it). */
const failures = new WeakMap<IncomingMessage, { error: unknown; status: number | undefined }>();
/** Requests another instance answered (shared mode): that instance counts them. */
const forwarded = new WeakSet<IncomingMessage>();

export function noteFailure(request: IncomingMessage, error: unknown, status?: number): void {
  failures.set(request, { error, status });
}

export function noteForwarded(request: IncomingMessage): void {
  forwarded.add(request);
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private observed: Observed | undefined;
  /** The watchdog's last reading: private bytes by browser process group leader. */
  private memory: ReadonlyMap<number, number> = new Map();

  private readonly operations = this.counter(
    "wayfarer_operations_total",
    "Requests of the v1 session API answered by this instance, by method and outcome.",
    ["method", "outcome"],
  );
  private readonly durations = new Histogram({
    name: "wayfarer_operation_duration_seconds",
    help: "Time from a request's arrival to its answer's (a stream's) last byte, by method and outcome.",
    labelNames: ["method", "outcome"],
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly errors = this.counter(
    "wayfarer_errors_total",
    "Failed answers by method (other: outside the session API) and error code.",
    ["method", "code"],
  );
  private readonly refusals = this.counter(
    "wayfarer_refusals_total",
    "Requests refused at an operator's limit, by project and the variable that sets it.",
    ["project", "limit"],
  );
  private readonly modelCalls = this.counter(
    "wayfarer_model_calls_total",
    "Model calls answered (and so paid for, by whichever key), by project.",
    ["project"],
  );
  private readonly modelTokens = this.counter(
    "wayfarer_model_tokens_total",
    "Model tokens by project and direction (input, output).",
    ["project", "direction"],
  );
  private readonly cacheLookups = this.counter(
    "wayfarer_server_cache_lookups_total",
    "Server-cache lookups of act, extract and observe, by result (hit, miss).",
    ["result"],
  );
  private readonly started = this.counter(
    "wayfarer_sessions_started_total",
    "Sessions this instance started.",
    [],
  );
  private readonly browsers = this.counter(
    "wayfarer_session_browsers_total",
    "Sessions started by where their browser came from: warm (launched ahead, WAYFARER_WARM_BROWSERS), launched (at the start), attached (the caller's).",
    ["from"],
  );
  private readonly watchdogEnded = this.counter(
    "wayfarer_sessions_ended_by_watchdog_total",
    "Sessions ended for passing a limit, by which: memory and disk (the watchdog), message (the browser sent one past the CDP pipe's cap, or one not JSON).",
    ["what"],
  );
  private readonly mcpCalls = this.counter(
    "wayfarer_mcp_tool_calls_total",
    "MCP tool calls answered at /mcp, by tool and outcome (ok, error: a tool error the calling model read).",
    ["tool", "outcome"],
  );
  private readonly mcpDurations = new Histogram({
    name: "wayfarer_mcp_tool_call_duration_seconds",
    help: "Time of an MCP tool call at /mcp, from its turn to its answer, by tool and outcome.",
    labelNames: ["tool", "outcome"],
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly forwards = this.counter(
    "wayfarer_forwarded_total",
    "Requests relayed to the instance that owns their session (shared mode), by status class.",
    ["status_class"],
  );

  constructor(settings: {
    /** WAYFARER_BROWSER_MAX_MEMORY_MB; undefined: the watchdog reads no memory. */
    memoryLimitMb: number | undefined;
    /** Shared mode (REDIS_URL): the cluster's gauges too. */
    shared: boolean;
  }) {
    // Made now, not at the first scrape: the process's CPU counters count from their making, and
    // made by the first scrape they read what that scrape cost, which can be 0.
    processMetrics();
    const gauge = (name: string, help: string, read: (o: Observed) => number) => {
      const g: Gauge = new Gauge({
        name,
        help,
        registers: [this.registry],
        collect: () => {
          if (this.observed) g.set(read(this.observed));
        },
      });
    };
    gauge("wayfarer_sessions_live", "Sessions live on this instance.", (o) => o.sessions.size);
    gauge(
      "wayfarer_sessions_capacity",
      "Sessions this instance may hold (WAYFARER_MAX_SESSIONS).",
      (o) => o.sessions.capacity,
    );
    gauge(
      "wayfarer_sessions_room",
      "Sessions this instance could still start (those starting count as taken).",
      (o) => o.sessions.room,
    );
    gauge(
      "wayfarer_warm_browsers",
      "Blank browsers launched ahead, waiting for the next session (WAYFARER_WARM_BROWSERS); each counts against WAYFARER_MAX_SESSIONS and within the room.",
      (o) => o.sessions.warm,
    );
    gauge("wayfarer_cdp_connections", "CDP connections open through this instance's proxy.", (o) =>
      o.cdpConnections(),
    );
    const limitMb = settings.memoryLimitMb;
    if (limitMb !== undefined) {
      gauge(
        "wayfarer_browser_memory_bytes",
        "Private memory of this instance's browsers, all together, at the watchdog's last reading.",
        (o) => this.browserBytes(o).reduce((sum, bytes) => sum + bytes, 0),
      );
      gauge(
        "wayfarer_browser_memory_max_bytes",
        "Private memory of this instance's largest browser, at the watchdog's last reading.",
        (o) => Math.max(0, ...this.browserBytes(o)),
      );
      gauge(
        "wayfarer_browser_memory_limit_bytes",
        "The memory one browser may take before the watchdog ends its session.",
        () => limitMb * 2 ** 20,
      );
    }
    if (!settings.shared) return;
    // From the registry's heartbeats; every instance is taken to have this one's
    // WAYFARER_MAX_SESSIONS, as the service guide asks.
    const cluster = (o: Observed) => [...(o.peers?.() ?? []), { room: o.sessions.room }];
    gauge(
      "wayfarer_cluster_instances",
      "Live instances in the cluster, this one included.",
      (o) => cluster(o).length,
    );
    gauge(
      "wayfarer_cluster_sessions_capacity",
      "Sessions the cluster may hold: its instances times WAYFARER_MAX_SESSIONS.",
      (o) => cluster(o).length * o.sessions.capacity,
    );
    gauge(
      "wayfarer_cluster_sessions_room",
      "Sessions the cluster could still start, as each instance's last heartbeat said.",
      (o) => cluster(o).reduce((sum, i) => sum + i.room, 0),
    );
    gauge(
      "wayfarer_cluster_sessions_live",
      "Sessions live or starting across the cluster: its capacity less its room.",
      (o) => cluster(o).reduce((sum, i) => sum + o.sessions.capacity - i.room, 0),
    );
  }

  /** What the gauges read: given once the service's parts exist (they are given this first). */
  observe(observed: Observed): void {
    this.observed = observed;
  }

  /** The Prometheus text of this service's metrics and the process's. */
  async text(): Promise<string> {
    return `${await processMetrics().metrics()}${await this.registry.metrics()}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** A request was answered: counted once, by the instance that ran it. */
  answered(request: FastifyRequest, reply: FastifyReply): Answered | undefined {
    if (forwarded.has(request.raw)) {
      this.forwards.inc({ status_class: `${Math.floor(reply.statusCode / 100)}xx` });
      return undefined;
    }
    const noted = failures.get(request.raw);
    const status = noted?.status ?? reply.statusCode;
    const method = methodOf(request.method, request.routeOptions.url);
    const outcome = outcomeOf(status, noted?.error);
    const code = status < 400 ? undefined : codeOf(noted?.error, status);
    const seconds = reply.elapsedTime / 1000;
    if (method) {
      this.operations.inc({ method, outcome });
      this.durations.observe({ method, outcome }, seconds);
    }
    if (code) this.errors.inc({ method: method ?? "other", code });
    return { method, status, outcome, code, error: noted?.error, seconds };
  }

  refused(project: string, limit: string): void {
    this.refusals.inc({ project, limit });
  }

  sessionStarted(): void {
    this.started.inc();
  }

  /** Where a started session's browser came from. */
  sessionBrowser(from: "warm" | "launched" | "attached"): void {
    this.browsers.inc({ from });
  }

  /** An MCP tool call answered; `tool` is one of the registry's names (the SDK refuses others). */
  mcpToolCall(call: { tool: string; isError: boolean; seconds: number }): void {
    const labels = { tool: call.tool, outcome: call.isError ? "error" : "ok" };
    this.mcpCalls.inc(labels);
    this.mcpDurations.observe(labels, call.seconds);
  }

  endedByWatchdog(what: "memory" | "disk" | "message"): void {
    this.watchdogEnded.inc({ what });
  }

  /** The watchdog's reading of every browser's memory. */
  browserMemory(byLeader: ReadonlyMap<number, number>): void {
    this.memory = byLeader;
  }

  /**
   * A session's spend guard that also counts each answered model call and its tokens under the
   * project (the guard is told of every call, whoever's key pays).
   */
  metered(project: string, guard: SpendGuard | undefined): SpendGuard {
    return {
      before: (config) => guard?.before(config),
      spent: (config, usage: Usage) => {
        this.modelCalls.inc({ project });
        this.modelTokens.inc({ project, direction: "input" }, usage.promptTokens);
        this.modelTokens.inc({ project, direction: "output" }, usage.completionTokens);
        guard?.spent(config, usage);
      },
    };
  }

  /** The server cache's store, each lookup counted as a hit or a miss. */
  countedCache(store: ServerCacheStore): ServerCacheStore {
    return {
      get: async (key) => {
        const value = await store.get(key);
        this.cacheLookups.inc({ result: value === undefined ? "miss" : "hit" });
        return value;
      },
      put: (key, value) => store.put(key, value),
    };
  }

  /** Live sessions' browsers only: an ended one's last reading is not memory held now. */
  private browserBytes(o: Observed): number[] {
    return o.sessions.all().flatMap((s) => {
      const bytes = s.browserPid === undefined ? undefined : this.memory.get(s.browserPid);
      return bytes === undefined ? [] : [bytes];
    });
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }
}

/**
 * The method of a route of the v1 session API (`act`, `start`, `end`, `session` for the
 * platform's GET, `release` for its POST); undefined for any other route (health, metrics, the
 * dashboard, no route at all).
 */
export function methodOf(httpMethod: string, route: string | undefined): string | undefined {
  if (route === "/v1/sessions/start") return "start";
  if (route === "/v1/sessions/:id") return httpMethod === "POST" ? "release" : "session";
  return route?.match(/^\/v1\/sessions\/:id\/([A-Za-z]+)$/)?.[1];
}

function outcomeOf(status: number, error: unknown): Outcome {
  if (status < 400) return "ok";
  const timedOut =
    error instanceof ServiceTimeoutError ||
    isPlaywrightTimeout(error) ||
    status === 408 ||
    status === 504;
  if (timedOut) return "timeout";
  return status < 500 ? "caller_error" : "failed";
}

/** The code of a library error or of the service's own refusal, Fastify's, or the status. */
function codeOf(error: unknown, status: number): string {
  if (error === undefined) return `HTTP_${status}`;
  const fastify = (error as { code?: unknown }).code;
  if (typeof fastify === "string" && /^FST_[A-Z0-9_]+$/.test(fastify)) return fastify;
  return toWireError(error).code;
}

/** The process's own metrics (CPU, memory, event loop, GC): one set, whatever the services. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
