/**
 * One browser session of the service: a local engine (its own Chromium, every request through
 * the egress guard under the service's rule), one operation at a time, its log lines handed to
 * whoever asked for the operation under way, and each call's usage kept for `/replay`.
 */
import { randomBytes } from "node:crypto";
import type { CDPSession } from "playwright-core";
import type { AgentDeps } from "../agent/agent.js";
import type { CdpHub } from "../browser/cdpHub.js";
import type { Context, PageLimit } from "../browser/context.js";
import type { RunAs } from "../browser/launch.js";
import type { ProfileKeeper } from "../contexts/profileKeeper.js";
import type { Engine, Operations } from "../engine/engine.js";
import { loggedPageHooks } from "../engine/pageHooks.js";
import { createEngine } from "../engine/select.js";
import { agentDepsFor } from "../engine/toolDeps.js";
import { ServiceError } from "../errors.js";
import { Logger, type LogLevel, type LogLine } from "../log.js";
import { type MetricsGroup, MetricsRecorder, type Usage } from "../metrics.js";
import { serviceModelAccess } from "../model/modelAccess.js";
import type { SpendGuard } from "../model/modelClient.js";
import type { AddressRule } from "../net/addressRule.js";
import { V3OptionsSchema } from "../options.js";
import { Journal, type KeptLine, type OperationRecord } from "./dashboard/journal.js";
import { LiveOperation, watchingModelCalls } from "./dashboard/liveOperation.js";
import { ShownText } from "./dashboard/shownText.js";
import { SessionBusyError, SessionGone } from "./serviceErrors.js";
import { browserOptions, openBrowser, type SessionBrowser } from "./sessionBrowser.js";
import type { TakenBrowser } from "./warmBrowsers.js";

/** What `/start` asks for, once parsed, and the key that came with it (never kept beyond it). */
export interface SessionInit {
  project: string;
  modelName: string | undefined;
  modelApiKey: string | undefined;
  verbose: LogLevel | undefined;
  systemPrompt: string | undefined;
  selfHeal: boolean | undefined;
  domSettleTimeoutMs: number | undefined;
  viewport: { width: number; height: number } | undefined;
  /** The platform's `timeout`: the session ends this long after it started. */
  lifetimeMs?: number;
  keepAlive?: boolean;
  /** The caller's own data about the session, handed back by GET /v1/sessions/{id}. */
  userMetadata?: Record<string, unknown>;
  /** The client's own settings (`wayfarer` of /start): outline budget, chunks, token cap, dialogs. */
  client?: {
    outlineTokenBudget?: number;
    maxChunksPerCall?: number;
    tokenCap?: number;
    dialogs?: "dismiss" | "accept" | "leave";
  };
  /** Platform fields a local browser has no use for: accepted, and said so in the log. */
  ignored?: string[];
  /** What the service changed of what was asked (a value cut to its limit), for the log. */
  notes?: string[];
  rule: AddressRule;
  /** Secrets of the service the session's logger must never show (API keys). */
  secrets: string[];
  /** The project's token budget on the operator's model keys (Quotas), when one is set. */
  spendGuard?: SpendGuard;
  /** Pages the session's browser may have open at once. */
  pageLimit?: PageLimit;
  /** The user the session's browser runs as (a service running as root). */
  runAs?: RunAs;
  /** What /start's `browser` field asked of the browser, as the service honours it. */
  browser?: SessionBrowser;
  /** A blank browser launched ahead for a session like this one (the warm pool): taken, not launched. */
  warm?: TakenBrowser;
  /** The context it starts with (`browserSettings.context`): restored, and saved when it persists. */
  keeper?: ProfileKeeper;
  /** `browserSettings.context` as asked: the context to hold, and whether to save it at the end. */
  context?: { id: string; persist: boolean };
  /** How often a streamed operation says it is still at work (WAYFARER_STREAM_KEEPALIVE_MS). */
  streamKeepAliveMs?: number;
}

export type { CallRecord, KeptLine, OperationRecord } from "./dashboard/journal.js";

/** Where the operation under way sends its log lines and each model call's usage. */
export interface OperationSink {
  line(line: LogLine): void;
  usage(group: Exclude<MetricsGroup, "total">, usage: Usage): void;
  /** A stream's: a comment that keeps it from going quiet (LiveOperation.beat). */
  keepAlive?(note: string): void;
}

/** The session's metrics, each model call's usage also told to the operation under way. */
class RelayedMetrics extends MetricsRecorder {
  constructor(private readonly current: () => OperationSink | undefined) {
    super();
  }
  override add(group: Exclude<MetricsGroup, "total">, usage: Usage): void {
    super.add(group, usage);
    this.current()?.usage(group, usage);
  }
}

export class Session {
  readonly createdAt = Date.now();
  lastUsed = Date.now();
  /** Its operations (for `/replay` and the dashboard) and latest log lines (at its verbose). */
  private readonly journal = new Journal(() => this.shownText);
  /** The read-only, session-scoped credential of the dashboard link; dies with the session. */
  readonly viewToken = randomBytes(32).toString("base64url");
  /** What the dashboard may show: typed values hidden (pictures painted over), secrets redacted. */
  private shownText = new ShownText(undefined);
  private verbose: LogLevel = 1;
  private keepAliveMs = 5_000;
  private browserSession: Promise<CDPSession | undefined> | undefined;
  private busy: LiveOperation | undefined;
  private sink: OperationSink | undefined;
  private ended: Promise<void> | undefined;
  private readonly endHooks: (() => void)[] = [];
  private readonly afterEndHooks: (() => void)[] = [];
  /** A context that persists: the end asks the browser to close, so that its profile is whole. */
  private persists = false;
  /** Aborted when the session ends: the operation under way stops with it. */
  private readonly ending = new AbortController();
  /** Aborted by a caller's stop: the operation under way stops as its own signal would stop it. */
  private stopper = new AbortController();
  /** Open CDP connections of remote clients (through the service's proxy). */
  clients = 0;
  /** Of those, the ones that came by the platform's `connectUrl` (Sessions.clientClosed). */
  lifelines = 0;
  /** The caller's own browser the session drives (`browser.cdpUrl`), as given: `/start` answers it. */
  callerCdpUrl: string | undefined;
  /** Made on first use: only an MCP session calls the agent's page tools outside an agent run. */
  private makeToolDeps: (() => AgentDeps) | undefined;
  private madeToolDeps: AgentDeps | undefined;

  private constructor(
    readonly id: string,
    /** What the platform's view of the session shows back (never the model key). */
    readonly details: { keepAlive: boolean; userMetadata?: Record<string, unknown> },
    readonly project: string,
    /** The model named at /start: it answers every call that names none (the cache keys on it). */
    readonly modelName: string | undefined,
    private readonly engine: Engine,
    private readonly context: Context,
    private readonly metrics: MetricsRecorder,
  ) {}

  /** Launches the session's browser; nothing is left running when this fails. */
  static async open(id: string, init: SessionInit): Promise<Session> {
    let self: Session | undefined;
    const options = V3OptionsSchema.parse({
      env: "LOCAL",
      verbose: init.verbose ?? 1,
      disablePino: true,
      logger: (line: LogLine) => self?.heard(line),
      systemPrompt: init.systemPrompt,
      selfHeal: init.selfHeal,
      domSettleTimeout: init.domSettleTimeoutMs,
      ...(init.modelName ? { model: { modelName: init.modelName, apiKey: init.modelApiKey } } : {}),
      ...browserOptions(init.browser, init.viewport, init.rule),
      ...init.client,
      // "leave" is not a policy of its own: it says who settles (the client), below.
      ...(init.client?.dialogs === "leave" ? { dialogs: "dismiss" } : {}),
    });
    const logger = new Logger({
      verbose: options.verbose,
      disablePino: true,
      logger: options.logger,
      // A caller's browser address may carry its own credential (a token in its query).
      secrets: [
        ...init.secrets,
        init.modelApiKey,
        init.browser?.attach?.given,
        init.browser?.attach?.url,
        ...Object.values(init.browser?.attach?.headers ?? {}),
      ],
    });
    const metrics = new RelayedMetrics(() => self?.sink);
    // The dashboard and the stream say when the model is being asked.
    const spendGuard = watchingModelCalls(init.spendGuard, () => self?.busy, init.modelName);
    const modelAccess = serviceModelAccess(init.rule);
    const engine = createEngine({
      options,
      logger,
      hooks: loggedPageHooks(logger),
      records: { metrics },
      // A client that settles dialogs over its own connection (its handler) gets them all.
      ...(init.client?.dialogs === "leave" ? { dialogDuty: "leave" as const } : {}),
      spendGuard,
      // The operator's keys only to the operator's endpoints; a caller's endpoint judged, pinned.
      modelAccess,
      pageLimit: init.pageLimit,
      // CDP over a pipe: the browser listens on no port; clients reach it only through our proxy.
      confine: {
        ...(init.runAs ? { runAs: init.runAs } : {}),
        ...(init.warm ? { warm: init.warm.warm } : {}),
        ...(init.keeper ? { keeper: init.keeper } : {}),
      },
    });
    const context = await openBrowser(engine, init.browser, init.viewport, init.warm !== undefined);
    const limit = init.pageLimit;
    if (limit) {
      // Counted by the browser itself: also the pages of contexts a CDP client makes, and
      // popups our Playwright has not reported yet.
      await engine.cdpHub
        ?.capPages(limit.max, (url) =>
          logger.warn(
            "context",
            `closed a new page: ${limit.max} pages are open, the most this browser may have (${limit.setBy})`,
            { url },
          ),
        )
        .catch(async (error: unknown) => {
          await engine.close({ force: true });
          throw error;
        });
    }
    const details = { keepAlive: init.keepAlive === true, userMetadata: init.userMetadata };
    self = new Session(id, details, init.project, init.modelName, engine, context, metrics);
    self.callerCdpUrl = init.browser?.attach?.given;
    self.persists = init.keeper?.persists === true;
    self.makeToolDeps = () =>
      agentDepsFor(options, logger, metrics, () => context, { spendGuard, modelAccess });
    self.shownText = new ShownText(logger.redactor);
    self.verbose = options.verbose;
    if (init.streamKeepAliveMs) self.keepAliveMs = init.streamKeepAliveMs;
    if (init.ignored?.length) {
      logger.info(
        "session",
        `accepted and ignored (a local browser has no use for them): ${init.ignored.join(", ")}`,
      );
    }
    for (const note of init.notes ?? []) logger.info("session", note);
    return self;
  }

  /**
   * Runs one operation: refused while another runs; its log lines go to `sink` while it runs
   * (a stream's also hears every few seconds that it is still at work); its usage is recorded
   * for `/replay`, and what it was asked (`request`, the parsed body) and answered for the
   * dashboard.
   */
  async operate<T>(
    method: string,
    work: (operations: Operations, context: Context) => Promise<T>,
    sink?: OperationSink,
    request?: unknown,
  ): Promise<T> {
    this.assertFree();
    const live = new LiveOperation(method, request, this.shownText);
    const startedAt = live.since;
    this.busy = live;
    this.sink = sink;
    const stopBeat = sink?.keepAlive ? live.beat(sink, this.keepAliveMs, this.verbose) : undefined;
    const before = this.metrics.snapshot();
    let outcome: { result: unknown } | { error: unknown } = { error: undefined };
    try {
      if (this.clients > 0) await this.catchUp();
      const result = await work(live.watch(this.engine.operations), this.context);
      outcome = { result };
      return result;
    } catch (error) {
      outcome = { error };
      throw error;
    } finally {
      stopBeat?.();
      const after = this.metrics.snapshot();
      this.journal.record({
        method,
        startedAt,
        durationMs: Date.now() - startedAt,
        ok: "result" in outcome,
        detail: live.finish(outcome),
        tokenUsage: {
          inputTokens: after.totalPromptTokens - before.totalPromptTokens,
          outputTokens: after.totalCompletionTokens - before.totalCompletionTokens,
          reasoningTokens: after.totalReasoningTokens - before.totalReasoningTokens,
          cachedInputTokens: after.totalCachedInputTokens - before.totalCachedInputTokens,
          timeMs: after.totalInferenceTimeMs - before.totalInferenceTimeMs,
        },
      });
      this.busy = undefined;
      this.sink = undefined;
      this.lastUsed = Date.now();
    }
  }

  /** What the agent's tools need, for calls outside an agent run (lib/service/mcp/). */
  get toolDeps(): AgentDeps {
    this.madeToolDeps ??= this.makeToolDeps?.();
    if (!this.madeToolDeps) throw new ServiceError(`The session ${this.id} has no browser yet.`);
    return this.madeToolDeps;
  }

  get operations(): readonly OperationRecord[] {
    return this.journal.operations;
  }

  get lines(): readonly KeptLine[] {
    return this.journal.lines;
  }

  /** The operation under way, if any: since when, what it was asked, the model call in flight. */
  get current(): LiveOperation | undefined {
    return this.busy;
  }

  /** The page the session shows: its active page. */
  activePage() {
    return this.context.activePage();
  }

  /**
   * A caller's variables (plain values or `{value}`): painted over in pictures, and shown as
   * their `%name%` in what the dashboard shows.
   */
  rememberValues(variables: Record<string, unknown> | undefined): void {
    this.shownText.remember(variables);
  }

  /** How the dashboard shows the session's text (ShownText). */
  get shown(): ShownText {
    return this.shownText;
  }

  /** A log line: kept for the dashboard, and handed to whoever runs the operation under way. */
  private heard(line: LogLine): void {
    this.journal.keep(line);
    this.sink?.line(line);
  }

  /** Something a client did (a CDP message it sent): the session is not idle. */
  touch(): void {
    this.lastUsed = Date.now();
  }

  /** A line of the service's own about the session (why the watchdog ended it): kept, streamed. */
  note(message: string): void {
    this.heard({ category: "session", message, level: 1, timestamp: new Date().toISOString() });
  }

  /**
   * A client driving the browser over CDP changes pages behind this side's back: its goto has
   * returned, but the events that tell this connection of it may still be on their way. One
   * round trip on this connection comes back after them (the browser sends in order), so the
   * operation sees the page as the client left it (its URL, which variable origins rely on).
   */
  private async catchUp(): Promise<void> {
    const browser = this.context.activePage()?.playwrightPage.context().browser();
    if (!browser) return;
    this.browserSession ??= browser.newBrowserCDPSession().catch(() => undefined);
    const session = await this.browserSession;
    await session?.send("Browser.getVersion").catch(() => {});
  }

  /** The session's open pages: their frame ids, URLs and titles. */
  async pageList(): Promise<{ id: string; url: string; title: string }[]> {
    return Promise.all(
      this.context.pages().map(async (page) => ({
        id: await page.frameId().catch(() => ""),
        url: page.url(),
        title: await page.title().catch(() => ""),
      })),
    );
  }

  /** Throws unless an operation could start now: the session is live and idle. */
  assertFree(): void {
    if (this.ended) throw new SessionGone(`The session ${this.id} has ended.`);
    if (this.busy) {
      throw new SessionBusyError(
        `The session is busy with ${this.busy.method}: one operation at a time (end it with /end).`,
      );
    }
  }

  /**
   * Ends the browser; safe to call twice. What was told to onEnd runs first; an operation under
   * way fails saying `why`, when there is one.
   */
  end(why?: string): Promise<void> {
    if (!this.ended) {
      // 410: the session is gone, which is no failure of the service's (not a 500).
      this.ending.abort(
        new SessionGone(
          `The session ${this.id} ended while this operation ran${why ? `: ${why}` : ""}.`,
        ),
      );
      for (const hook of this.endHooks.splice(0)) hook();
      this.ended = this.engine.close({ force: !this.persists }).finally(() => {
        for (const hook of this.afterEndHooks.splice(0)) hook();
      });
    }
    return this.ended;
  }

  /** Aborts when the session ends. */
  get endSignal(): AbortSignal {
    return this.ending.signal;
  }

  /** What the next operation stops on besides the session's end: a caller's stop. */
  stopSignalForNext(): AbortSignal {
    this.stopper = new AbortController();
    return this.stopper.signal;
  }

  /**
   * Stops the operation under way the way a library caller's signal does (an agent run ends
   * between steps and answers its result); false when nothing runs.
   */
  stopCurrent(): boolean {
    if (!this.busy) return false;
    this.stopper.abort(new ServiceError("The caller stopped the run."));
    return true;
  }

  /** `hook` runs once the session's browser has ended (its context saved), however it ended. */
  afterEnd(hook: () => void): void {
    if (this.ended) void this.ended.then(hook, hook);
    else this.afterEndHooks.push(hook);
  }

  /** Runs `hook` when the session ends (its CDP connections close). */
  onEnd(hook: () => void): void {
    if (this.ended) hook();
    else this.endHooks.push(hook);
  }

  /** The one way into the session's browser (a pipe): the service's CDP proxy opens clients on it. */
  get cdpHub(): CdpHub | undefined {
    return this.engine.cdpHub;
  }

  /** The browser's own folder: its profile, temp files and downloads (`downloads/`). */
  get browserFolder(): string | undefined {
    return this.engine.browserFolder;
  }

  /** The PID of the session's browser (for checks that it is gone). */
  get browserPid(): number | undefined {
    return this.engine.browserPid;
  }

  get isBusy(): boolean {
    return this.busy !== undefined;
  }

  get isEnded(): boolean {
    return this.ended !== undefined;
  }
}
