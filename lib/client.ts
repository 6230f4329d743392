/**
 * The Client: options → logger → engine, and the lifecycle around them. Wiring only: the engine
 * was picked for the environment at construction, and nothing here tests for it again.
 */
import type { z } from "zod";
import type { ActResult } from "./api/operations.js";
import type { Context } from "./browser/context.js";
import { ActionCache, cacheSettingsFor } from "./cache/actionCache.js";
import { AgentCache } from "./cache/agentCache.js";
import type { Engine } from "./engine/engine.js";
import { loggedPageHooks } from "./engine/pageHooks.js";
import { createEngine, type EngineParts } from "./engine/select.js";
import { ServiceError, ServiceInitError, ServiceNotInitializedError } from "./errors.js";
import { History, type HistoryEntry } from "./history.js";
import { Logger } from "./log.js";
import { type Metrics, MetricsRecorder } from "./metrics.js";
import type { ModelTap } from "./model/modelTap.js";
import { type Agent, agentHandle } from "./operations/agentHandle.js";
import { readExtractCall } from "./operations/extractCall.js";
import { OperationPath } from "./operations/operationPath.js";
import { checkEnvironment, warnAboutInactiveOptions } from "./optionChecks.js";
import {
  type Action,
  type ActOptions,
  type AgentConfig,
  type ExtractOptions,
  type ObserveOptions,
  parseInput,
  type ResolvedOptions,
  type V3Options,
  V3OptionsSchema,
} from "./options.js";
import { rawDetail, readableReason } from "./readableError.js";
import { secretsOf } from "./secrets.js";

/** Not public: what the test suite may replace. */
export interface ClientInternals {
  engine?: (parts: EngineParts) => Engine;
  /** A job's recording or replay (lib/job/recording/): sees the model calls of a LOCAL engine. */
  modelTap?: ModelTap;
}

export class Client {
  private readonly options: ResolvedOptions;
  private readonly logger: Logger;
  private readonly engine: Engine;
  private readonly path: OperationPath;
  private readonly agentCache: AgentCache | undefined;
  private readonly historyLog: History;
  private readonly metricsLog = new MetricsRecorder();
  private initializing: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private ctx: Context | undefined;

  /**
   * `internals` is not part of the public interface: the test suite passes an engine of its
   * own (the JSON loopback) to run the same behaviour through the wire types.
   */
  constructor(options: V3Options, internals: ClientInternals = {}) {
    checkEnvironment(options);
    this.options = parseInput(V3OptionsSchema, options, "Client options");
    this.logger = new Logger({
      verbose: this.options.verbose,
      disablePino: this.options.disablePino,
      logger: this.options.logger,
      secrets: secretsOf(this.options),
    });
    this.historyLog = new History(this.logger.redactor);
    warnAboutInactiveOptions(options, this.logger);
    const parts: EngineParts = {
      options: this.options,
      logger: this.logger,
      hooks: loggedPageHooks(this.logger, (n) =>
        this.historyLog.record("navigate", { url: n.url, options: n.options }, n.result),
      ),
      records: { metrics: this.metricsLog },
      modelTap: internals.modelTap,
    };
    this.engine = (internals.engine ?? createEngine)(parts);
    const cache = cacheSettingsFor(this.options, this.logger);
    this.path = new OperationPath({
      operations: this.engine.operations,
      ready: (method) => this.ready(method),
      history: this.historyLog,
      redactor: this.logger.redactor,
      cache: cache && new ActionCache(cache),
    });
    this.agentCache = cache && new AgentCache(cache, this.engine.operations);
  }

  /**
   * Launches or attaches to the browser and opens the first page. Calling it again returns the
   * same outcome (one launch); after close() it is refused.
   */
  init(): Promise<void> {
    if (this.closing) {
      return Promise.reject(
        new ServiceError("init(): this client was closed; create a new Client."),
      );
    }
    this.initializing ??= this.start();
    return this.initializing;
  }

  /**
   * Ends the browser (or with keepAlive lets go of it). Safe to call twice, even at once.
   * `force` does not wait for a pending init() or a graceful close: it ends the browser now.
   */
  close(options: { force?: boolean } = {}): Promise<void> {
    const force = options.force === true;
    if (this.closing && !force) return this.closing;
    const previous = this.closing;
    this.closing = (async () => {
      if (!force) await this.initializing?.catch(() => {});
      await this.engine.close({ force });
      // A forced close may overtake init: init notices, cleans up, and fails.
      await Promise.all([previous, this.initializing].map((p) => p?.catch(() => {})));
      this.logger.debug("client", "closed");
    })();
    return this.closing;
  }

  /**
   * `extract()` / `extract(options)`: the page as the model sees it, `{ pageText }`.
   * `extract(instruction[, options])`: `{ extraction }`. `extract(instruction, schema[, options])`
   * or `extract({ instruction, schema, ...options })`: data of the schema's type.
   */
  extract(options?: ExtractOptions): Promise<{ pageText: string }>;
  extract(instruction: string, options?: ExtractOptions): Promise<{ extraction: string }>;
  extract<T extends z.ZodType>(
    instruction: string,
    schema: T,
    options?: ExtractOptions,
  ): Promise<z.output<T>>;
  extract<T extends z.ZodType>(
    call: ExtractOptions & { instruction: string; schema?: T },
  ): Promise<z.output<T>>;
  async extract(
    first?:
      | ExtractOptions
      | string
      | (ExtractOptions & { instruction?: string; schema?: z.ZodType }),
    second?: z.ZodType | ExtractOptions,
    third?: ExtractOptions,
  ): Promise<unknown> {
    return this.path.extract(readExtractCall(first, second, third));
  }

  /**
   * `observe(instruction?, options?)`: the elements matching the instruction as Actions, most
   * relevant first (`[]` when nothing matches); without an instruction, every interactive one.
   */
  observe(instruction?: string, options?: ObserveOptions): Promise<Action[]> {
    return this.path.observe(instruction, options);
  }

  /**
   * `act(instruction | Action, options?)`: does what the instruction says on the element the
   * model picks, or performs an Action from observe() with no model call.
   */
  act(input: string | Action, options?: ActOptions): Promise<ActResult> {
    return this.path.act(input, options);
  }

  /**
   * `agent(config?)`: an agent for multi-step tasks; `execute(instruction | options)` runs one.
   * With `stream: true`, execute() answers `{ fullStream, result }` at once.
   */
  agent(config: AgentConfig & { stream: true }): Agent<true>;
  agent(config?: AgentConfig & { stream?: false }): Agent<false>;
  agent(config: AgentConfig): Agent<boolean>;
  agent(config?: AgentConfig): Agent<boolean> {
    return agentHandle(config, {
      operations: this.engine.operations,
      ready: (method) => this.ready(method),
      logger: this.logger,
      clientModel: { model: this.options.model, custom: this.options.llmClient !== undefined },
      cache: this.agentCache,
    });
  }

  /** The pages: newPage(), pages(), activePage(), setActivePage(page). */
  get context(): Context {
    return this.ready("context");
  }

  get metrics(): Promise<Metrics> {
    return Promise.resolve(this.metricsLog.snapshot());
  }

  get history(): Promise<readonly HistoryEntry[]> {
    return Promise.resolve(this.historyLog.list());
  }

  get browserbaseSessionID(): string | undefined {
    return this.engine.sessionId;
  }
  get browserbaseSessionURL(): string | undefined {
    return this.engine.sessionUrl;
  }
  get browserbaseDebugURL(): string | undefined {
    return this.engine.debugUrl;
  }
  /** The CDP URL to attach to this browser again (`localBrowserLaunchOptions.cdpUrl`). */
  get connectURL(): string | undefined {
    return this.engine.connectURL;
  }
  /** PID of the browser process this client launched; undefined when attached or remote. */
  get browserPid(): number | undefined {
    return this.engine.browserPid;
  }

  private async start(): Promise<void> {
    try {
      // A plain close() waits for this to finish (then keepAlive applies); a forced one makes
      // the engine give up, and this rejects.
      this.ctx = await this.engine.init();
      this.logger.info("client", "ready", { connectURL: this.engine.connectURL });
    } catch (error) {
      const cause = this.logger.redactor.error(error);
      // One readable line; what Playwright said in full (its call log) goes to a debug line.
      this.logger.debug("client", "init failed", { detail: rawDetail(cause) });
      throw new ServiceInitError(readableReason(cause), { cause });
    }
  }

  private ready(method: string): Context {
    if (!this.ctx || this.closing) {
      if (this.closing) {
        throw new ServiceError(`${method}: this client was closed; create a new Client.`);
      }
      throw new ServiceNotInitializedError(method);
    }
    return this.ctx;
  }
}
