/**
 * The sessions this instance holds: started, found by id within a project (another project's
 * session answers as if it did not exist), ended on request, when idle, when the last client
 * of a session without keepAlive goes away, or all at shutdown.
 */
import type { ServiceConfig } from "./config.js";
import { ServiceFull, ServiceStopping, SessionNotFound } from "./serviceErrors.js";
import { Session, type SessionInit } from "./session.js";

export class Sessions {
  private readonly live = new Map<string, Session>();
  /** Sessions being started count against the limit too, and shutdown waits for them. */
  private readonly starting = new Set<Promise<unknown>>();
  private stopping = false;
  private readonly reaper: NodeJS.Timeout;

  constructor(private readonly config: ServiceConfig) {
    // Looked for four times per idle period: a session outlives its idle time by a quarter at most.
    const every = Math.min(Math.max(config.idleMs / 4, 250), 30_000);
    this.reaper = setInterval(() => void this.endIdle(), every);
    this.reaper.unref();
  }

  async start(init: SessionInit): Promise<Session> {
    if (this.stopping) throw stoppingError();
    if (this.live.size + this.starting.size >= this.config.maxSessions) {
      throw new ServiceFull(
        `The service is full: ${this.config.maxSessions} sessions at most (WAYFARER_MAX_SESSIONS); end one or try again later.`,
      );
    }
    const opening = Session.open(init);
    this.starting.add(opening);
    try {
      const session = await opening.catch((error: unknown) => {
        // A launch cut short by shutdown says so, not how its browser died.
        throw this.stopping ? stoppingError() : error;
      });
      if (this.stopping) {
        await session.end().catch(() => {});
        throw stoppingError();
      }
      this.live.set(session.id, session);
      if (init.lifetimeMs !== undefined) {
        // The platform's session timeout: ended then, whatever it is doing.
        setTimeout(() => {
          if (this.live.get(session.id) !== session) return;
          this.live.delete(session.id);
          void session.end().catch(() => {});
        }, init.lifetimeMs).unref();
      }
      return session;
    } finally {
      this.starting.delete(opening);
    }
  }

  get(id: string, project: string): Session {
    const session = this.live.get(id);
    if (!session || session.project !== project) {
      throw new SessionNotFound(`No session ${id}: it ended, or it never existed.`);
    }
    return session;
  }

  async end(id: string, project: string): Promise<void> {
    const session = this.get(id, project);
    this.live.delete(id);
    await session.end();
  }

  /** A CDP client of the session connected (through the proxy). */
  clientOpened(session: Session): void {
    session.clients++;
    session.touch();
  }

  /**
   * A CDP client went away. The last one ends a session without keepAlive, after a grace, unless
   * a client came back or an operation runs; a keepAlive session stays until ended or idle.
   */
  clientClosed(session: Session): void {
    session.clients--;
    session.touch();
    if (session.details.keepAlive || session.clients > 0) return;
    setTimeout(() => {
      if (session.clients > 0 || session.isBusy || this.live.get(session.id) !== session) return;
      this.live.delete(session.id);
      void session.end().catch(() => {});
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

  /** Takes no new session, waits for those being started (each then ended) and ends every one. */
  async endAll(): Promise<void> {
    this.stopping = true;
    clearInterval(this.reaper);
    await Promise.allSettled([...this.starting]);
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.all(all.map((s) => s.end().catch(() => {})));
  }

  private async endIdle(): Promise<void> {
    const now = Date.now();
    for (const [id, session] of this.live) {
      // A connected client is there even when it sends nothing (the heartbeat drops dead ones).
      if (!session.isBusy && session.clients === 0 && now - session.lastUsed > this.config.idleMs) {
        this.live.delete(id);
        await session.end().catch(() => {});
      }
    }
  }
}

const stoppingError = () =>
  new ServiceStopping("The service is shutting down: start the session again elsewhere.");
