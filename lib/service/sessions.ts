/**
 * The sessions this instance holds: started, found by id within a project (another project's
 * session answers as if it did not exist), ended on request, when idle, when the last client
 * that came by the platform's connectUrl to a session without keepAlive goes away, when its time is up (the platform's `timeout`, a
 * keepAlive session's most), when the watchdog finds its browser past a limit (the next call of
 * its project on it is told why), or all at shutdown. Each counts against its project's limits.
 */
import { randomUUID } from "node:crypto";
import { chromiumDriver } from "../browser/chromiumDriver.js";
import { type ProfileKeeper, profileKeeper } from "../contexts/profileKeeper.js";
import { ContextNotFoundError, ServiceValidationError } from "../errors.js";
import { readableReason } from "../readableError.js";
import { BrowserUsers } from "./browserUsers.js";
import type { ServiceConfig } from "./config.js";
import type { ContextStore } from "./contextStore.js";
import { unsandboxedRefusal } from "./isolation.js";
import type { ServiceMetrics } from "./metrics.js";
import { type QuotaCounters, Quotas } from "./quotas.js";
import { ServiceFull, ServiceStopping, SessionNotFound } from "./serviceErrors.js";
import { Session, type SessionInit } from "./session.js";
import { warmWillDo } from "./sessionBrowser.js";
import { type Excess, excessText, SessionWatch } from "./sessionWatch.js";
import { type TakenBrowser, WarmBrowsers } from "./warmBrowsers.js";

/** Told of each session that starts and ends, and when room changes (the shared registry). */
export interface SessionWatcher {
  started(session: Session): void;
  ended(session: Session): void;
  /** Shared mode: the projects' counts, kept where every instance counts (Redis). */
  readonly counters?: QuotaCounters;
}

export class Sessions {
  private readonly live = new Map<string, Session>();
  /** Sessions being started count against the limit too, and shutdown waits for them. */
  private readonly starting = new Set<Promise<unknown>>();
  private stopping = false;
  private readonly reaper: NodeJS.Timeout;
  private readonly watch: SessionWatch;
  private readonly endReasons = new EndReasons();

  private readonly newId: () => string;
  private readonly watcher: SessionWatcher | undefined;
  private readonly quotas: Quotas;
  /** Whom each session's browser runs as (a uid of its own, when we are root). */
  readonly browserUsers: BrowserUsers;
  /** Blank browsers launched ahead (WAYFARER_WARM_BROWSERS); undefined: every start launches. */
  readonly warmBrowsers: WarmBrowsers | undefined;

  constructor(
    private readonly config: ServiceConfig,
    /** Shared mode: ids that name this instance, and the registry told of each session. */
    shared: { newId: () => string; watcher: SessionWatcher } | undefined,
    private readonly metrics: ServiceMetrics,
    /** The project's contexts a session may start with (`browserSettings.context`). */
    private readonly contexts?: ContextStore,
  ) {
    this.newId = shared?.newId ?? randomUUID;
    this.watcher = shared?.watcher;
    this.quotas = new Quotas(config.limits, shared?.watcher.counters, metrics);
    this.browserUsers = new BrowserUsers(config.browserUsers);
    // Fail closed: strangers' browsers without Chromium's sandbox only with the operator's yes.
    const unsandboxed = unsandboxedRefusal(
      this.browserUsers.plan,
      config.allowUnsandboxed === true,
    );
    if (unsandboxed) {
      throw new ServiceValidationError("the service's environment", [
        { path: ["WAYFARER_ALLOW_UNSANDBOXED_BROWSERS"], message: unsandboxed },
      ]);
    }
    this.warmBrowsers =
      config.warmBrowsers > 0
        ? new WarmBrowsers({
            size: config.warmBrowsers,
            capacity: config.maxSessions,
            others: () => this.live.size + this.starting.size,
            newId: this.newId,
            users: this.browserUsers,
            rule: config.rule,
            warn: config.warn,
            memoryShort: config.memoryShort,
          })
        : undefined;
    // Looked for four times per idle period: a session outlives its idle time by a quarter at most.
    const every = Math.min(Math.max(config.idleMs / 4, 250), 30_000);
    this.reaper = setInterval(() => {
      void this.endIdle();
      this.warmBrowsers?.checkMemory();
    }, every);
    this.reaper.unref();
    this.watch = new SessionWatch(
      {
        memoryMb: config.limits.browserMaxMemoryMb,
        diskMb: config.limits.sessionMaxDiskMb,
        intervalMs: config.watchIntervalMs,
      },
      () => this.all(),
      (session, excess) => this.endPastLimit(session as Session, excess),
      metrics,
    );
    this.watch.start();
  }

  async start(init: SessionInit): Promise<Session> {
    if (this.stopping) throw stoppingError();
    if (this.isFull) {
      this.metrics.refused(init.project, "WAYFARER_MAX_SESSIONS");
      throw new ServiceFull(
        this.watcher
          ? `Every instance is full: ${this.config.maxSessions} sessions at most on each (WAYFARER_MAX_SESSIONS); end one or try again later.`
          : `The service is full: ${this.config.maxSessions} sessions at most (WAYFARER_MAX_SESSIONS); end one or try again later.`,
      );
    }
    const opening = this.open(init);
    this.starting.add(opening);
    try {
      const session = await opening.catch((error: unknown) => {
        // A launch cut short by shutdown says so, not how its browser died.
        throw this.stopping ? stoppingError() : error;
      });
      if (this.stopping) {
        this.quotas.releaseSlot(session.id);
        await session
          .end()
          .catch(() => {})
          .finally(() => this.browserUsers.give(session.id));
        throw stoppingError();
      }
      this.live.set(session.id, session);
      // Counted once: as live, no longer as starting, when the registry hears of its room.
      this.starting.delete(opening);
      this.watcher?.started(session);
      this.metrics.sessionStarted();
      // Its browser sent what cannot be taken (a page's 600 MB error): that browser is gone.
      session.cdpHub?.onBreach((reason) => this.endFor(session, reason, "message"));
      // The platform's session timeout, and a keepAlive session's most (which no client's
      // presence extends): ended then, whatever it is doing.
      const keepAliveMs = init.keepAlive ? this.config.limits.keepAliveMaxMs : undefined;
      const lifeMs = Math.min(init.lifetimeMs ?? Infinity, keepAliveMs ?? Infinity);
      if (lifeMs !== Infinity) {
        const timer = setTimeout(() => void this.retire(session), lifeMs).unref();
        session.onEnd(() => clearTimeout(timer));
      }
      return session;
    } finally {
      this.starting.delete(opening);
    }
  }

  /**
   * Takes a warm browser when one will do (it carries the session's id and user), then the
   * project's slot, then opens; the slot is given back when opening fails, and a warm browser
   * the session never used goes back to the pool.
   */
  private async open(init: SessionInit): Promise<Session> {
    // Before any await: the browser passes from the pool to the starting sessions at once.
    // A context's profile is restored into the launch: a browser launched ahead has its own.
    const taken = warmWillDo(init.browser) && !init.context ? this.warmBrowsers?.take() : undefined;
    const id = taken?.id ?? this.newId();
    try {
      await this.quotas.takeSlot(init.project, id);
    } catch (error) {
      if (taken) this.warmBrowsers?.giveBack(taken);
      throw error;
    }
    let keeper: ProfileKeeper | undefined;
    try {
      keeper = init.context && (await this.keeperFor(init.project, init.context, id));
    } catch (error) {
      this.quotas.releaseSlot(id);
      throw error;
    }
    const letContextGo = () => {
      if (init.context) this.contexts?.release(init.project, init.context.id, id);
    };
    try {
      // A caller's own browser (attached) is no process of this host: no user, no page cap.
      const ours = !init.browser?.attach;
      // A fresh launch beside the pool's browsers: the pool gives up room it no longer has.
      if (ours && !taken) this.warmBrowsers?.trim();
      const runAs = ours ? this.browserUsers.take(id) : undefined;
      const opening = (warm: TakenBrowser | undefined) =>
        Session.open(id, {
          ...init,
          spendGuard: this.metrics.metered(init.project, this.quotas.spendGuard(init.project)),
          ...(ours
            ? { pageLimit: { max: this.config.limits.maxPages, setBy: "WAYFARER_MAX_PAGES" } }
            : {}),
          ...(runAs ? { runAs } : {}),
          ...(warm ? { warm } : {}),
          ...(keeper ? { keeper } : {}),
        });
      let from: "warm" | "launched" | "attached" = taken ? "warm" : ours ? "launched" : "attached";
      const session = await opening(taken).catch((error: unknown) => {
        if (!taken || this.stopping) throw error;
        // It died between the pool's look and the handover (it was ended with the failure):
        // the session gets the launch it would have had without a pool.
        this.config.warn(
          `warning: a warm browser failed as it was handed to a session (${readableReason(error)}); launching one instead`,
        );
        from = "launched";
        return opening(undefined);
      });
      this.metrics.sessionBrowser(from);
      // Held until its browser has ended and its profile is saved: the next session reads that.
      session.afterEnd(letContextGo);
      return session;
    } catch (error) {
      // The launch left nothing running (Session.open's promise): its user is free again.
      this.browserUsers.give(id);
      this.quotas.releaseSlot(id);
      letContextGo();
      throw error;
    } finally {
      // The next one is launched once this session has its browser, not while it gets it (and
      // a failed start may have left room a waiting browser gave up).
      setImmediate(() => this.warmBrowsers?.fill());
    }
  }

  /** The context held for session `id`, and what restores and saves its profile. */
  private async keeperFor(
    project: string,
    context: { id: string; persist: boolean },
    id: string,
  ): Promise<ProfileKeeper> {
    const contexts = this.contexts;
    if (!contexts) throw new ContextNotFoundError(context.id);
    await contexts.hold(project, context.id, id);
    try {
      const archive = await contexts.load(project, context.id);
      const save = context.persist
        ? async (packed: Buffer) => void (await contexts.save(project, context.id, packed))
        : undefined;
      return profileKeeper(archive, save, (line) =>
        this.config.warn(`warning: session ${id}, context ${context.id}: ${line}`),
      );
    } catch (error) {
      contexts.release(project, context.id, id);
      throw error;
    }
  }

  get(id: string, project: string): Session {
    const session = this.live.get(id);
    if (!session || session.project !== project) {
      // Only its own project learns why; to another, the id names nothing, as before.
      const reason = this.endReasons.of(id, project);
      throw new SessionNotFound(
        reason
          ? `The session ${id} was ended: ${reason}.`
          : `No session ${id}: it ended, or it never existed.`,
      );
    }
    return session;
  }

  async end(id: string, project: string): Promise<void> {
    await this.retire(this.get(id, project));
  }

  /** Ends a live session once, whoever asks first; the watcher hears of it. */
  private async retire(session: Session, why?: string): Promise<void> {
    // Its user is handed out again only once its browser has ended and its folder is gone.
    const giveUser = () => this.browserUsers.give(session.id);
    if (this.live.get(session.id) !== session) return session.end(why).finally(giveUser);
    this.live.delete(session.id);
    this.quotas.releaseSlot(session.id);
    this.watcher?.ended(session);
    await session.end(why).finally(giveUser);
    // Its room is free again: the pool may take it.
    this.warmBrowsers?.fill();
  }

  /**
   * The watchdog found the session's browser past a limit: ended like any other (its slot given
   * back, the registry told), and said so in its log, in the service's, and to the next call.
   */
  private endPastLimit(session: Session, excess: Excess): void {
    this.endFor(session, excessText(excess), excess.what);
  }

  /** Ends a session for `reason`, said in its log, in the service's, and to the next call. */
  private endFor(session: Session, reason: string, what: "memory" | "disk" | "message"): void {
    if (this.live.get(session.id) !== session) return;
    this.metrics.endedByWatchdog(what);
    this.endReasons.remember(session.id, session.project, reason);
    session.note(`ended: ${reason}`);
    this.config.warn(
      `warning: ended session ${session.id} of project ${session.project}: ${reason}`,
    );
    void this.retire(session, reason).catch(() => {});
  }

  /** A CDP client of the session connected (through the proxy); `lifeline`: by the platform's connectUrl. */
  clientOpened(session: Session, lifeline = false): void {
    session.clients++;
    if (lifeline) session.lifelines++;
    session.touch();
  }

  /**
   * A CDP client went away. The last lifeline (a client that came by the platform's
   * `connectUrl`, as the 3.7 client does) leaving ends a session without keepAlive, after a
   * grace, unless a client is still there or came back, or an operation runs. A client that came
   * by `/start`'s `cdpUrl` (a look in, beside API calls: the Python SDK's way, the reference
   * suite's) ends nothing, as on the reference; a keepAlive session stays until ended or idle.
   */
  clientClosed(session: Session, lifeline = false): void {
    session.clients--;
    if (lifeline) session.lifelines--;
    session.touch();
    if (!lifeline || session.details.keepAlive || session.clients > 0) return;
    setTimeout(() => {
      if (session.clients > 0 || session.isBusy) return;
      void this.retire(session).catch(() => {});
    }, this.config.releaseGraceMs).unref();
  }

  /** A live session by id, whatever its project (the CDP proxy checks its token instead). */
  find(id: string): Session | undefined {
    return this.live.get(id);
  }

  /** The PID of a live session's browser, whatever its project. */
  browserPidOf(id: string): number | undefined {
    return this.live.get(id)?.browserPid;
  }

  get size(): number {
    return this.live.size;
  }

  /** Sessions this instance could still start (those being started count as taken). */
  get room(): number {
    return Math.max(0, this.config.maxSessions - this.live.size - this.starting.size);
  }

  /** Sessions this instance may hold (WAYFARER_MAX_SESSIONS). */
  get capacity(): number {
    return this.config.maxSessions;
  }

  /**
   * Browser users left for new sessions (a waiting warm browser's goes to the session that
   * takes it); undefined: every browser runs as the service's user.
   */
  get usersLeft(): number | undefined {
    const left = this.browserUsers.left;
    return left === undefined ? undefined : left + (this.warmBrowsers?.ready ?? 0);
  }

  /** Warm browsers waiting for a session (/metrics). */
  get warm(): number {
    return this.warmBrowsers?.ready ?? 0;
  }

  /** The pool starts filling (the service listens: a cold start is not slowed by it). */
  warmUp(): void {
    this.warmBrowsers?.start();
  }

  /**
   * With warm browsers, the browser library is loaded before the service listens: loading it is
   * one block of the event loop (about 0.7 s, more on a busy host) that the pool's first launch
   * would otherwise cause just after /readyz said yes, stalling every request in the meantime.
   */
  async beforeListening(): Promise<void> {
    if (this.warmBrowsers) await chromiumDriver();
  }

  get isFull(): boolean {
    return this.room === 0;
  }

  /** Every live session (the registry's heartbeat refreshes them). */
  all(): Session[] {
    return [...this.live.values()];
  }

  /** Takes no new session, waits for those being started (each then ended) and ends every one. */
  async endAll(): Promise<void> {
    this.stopping = true;
    clearInterval(this.reaper);
    this.watch.stop();
    await Promise.all([
      this.warmBrowsers?.close(),
      Promise.allSettled([...this.starting]).then(() =>
        Promise.all(this.all().map((s) => this.retire(s).catch(() => {}))),
      ),
    ]);
  }

  private async endIdle(): Promise<void> {
    const now = Date.now();
    for (const session of this.all()) {
      // A connected client is there even when it sends nothing (the heartbeat drops dead ones).
      if (!session.isBusy && session.clients === 0 && now - session.lastUsed > this.config.idleMs) {
        await this.retire(session).catch(() => {});
      }
    }
  }
}

/**
 * Why sessions the watchdog ended were ended, by id, for the next call on them: kept 15 minutes
 * (a client that polls or retries asks within seconds), and the oldest dropped past 4,096 (a
 * few hundred bytes each).
 */
class EndReasons {
  private readonly reasons = new Map<string, { project: string; reason: string; at: number }>();

  remember(id: string, project: string, reason: string): void {
    this.drop();
    this.reasons.set(id, { project, reason, at: Date.now() });
    if (this.reasons.size > REASONS_KEPT) {
      const oldest = this.reasons.keys().next().value;
      if (oldest !== undefined) this.reasons.delete(oldest);
    }
  }

  of(id: string, project: string): string | undefined {
    this.drop();
    const kept = this.reasons.get(id);
    return kept?.project === project ? kept.reason : undefined;
  }

  /** Insertion order is age order: the stale ones are at the front. */
  private drop(): void {
    const stale = Date.now() - REASON_KEPT_MS;
    for (const [id, { at }] of this.reasons) {
      if (at > stale) break;
      this.reasons.delete(id);
    }
  }
}

const REASONS_KEPT = 4_096;
const REASON_KEPT_MS = 15 * 60_000;

const stoppingError = () =>
  new ServiceStopping("The service is shutting down: start the session again elsewhere.");
