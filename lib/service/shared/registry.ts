/**
 * The shared registry (DESIGN.md, "The service: state and scale"): each instance's entry (its
 * internal URL and room for sessions) and each session's (owner instance, internal URL,
 * project, status, last seen), both renewed by the owner's heartbeat and gone a TTL after it
 * stops; and the session-ended events. It answers where a session lives: here, on a live
 * owner (its URL), or nowhere any more (its owner is gone: 410).
 *
 * Redis may restart empty or be unreachable for a while: the owner keeps its sessions, a lookup
 * falls back on the owner named in the id and on the instances this one has seen, and the next
 * heartbeat after Redis is back writes every entry again.
 */
import type { Redis } from "ioredis";
import type { Session } from "../session.js";
import type { SessionWatcher } from "../sessions.js";
import { ownerOf } from "./sessionIds.js";

const KEY = {
  instance: (id: string) => `wayfarer:instance:${id}`,
  instances: "wayfarer:instances",
  session: (id: string) => `wayfarer:session:${id}`,
  ended: "wayfarer:session-ended",
};

export interface InstanceView {
  id: string;
  url: string;
  /** Sessions it could still start, as of its last heartbeat. */
  room: number;
  /** When this instance last read it from Redis. */
  seenAt: number;
}

export type Route =
  | { kind: "here" }
  | { kind: "owner"; instance: InstanceView }
  /** Its owner stopped: the session and its browser are gone. */
  | { kind: "gone"; instance: string }
  /** Its owner cannot be looked up now (Redis unreachable, never seen from here). */
  | { kind: "unknown"; instance: string };

export interface Me {
  id: string;
  url: string;
  /** Sessions this instance could still start. */
  room(): number;
  /** Its live sessions, renewed by each heartbeat. */
  sessions(): Session[];
}

export class Registry implements SessionWatcher {
  private readonly instances = new Map<string, InstanceView>();
  /** Instances a forward found dead, before their entry's TTL runs out. */
  private readonly dead = new Map<string, number>();
  /** Sessions' owners looked up before, forgotten when the session-ended event comes. */
  private readonly owners = new Map<string, string>();
  private heartbeat: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly events: Redis,
    private readonly me: Me,
    private readonly ttlMs: number,
  ) {}

  /** Writes this instance's entry, reads the others', and keeps both fresh. */
  async start(): Promise<void> {
    await this.events.subscribe(KEY.ended);
    this.events.on("message", (_channel: string, id: string) => this.owners.delete(id));
    // Redis back after a restart (maybe empty): every entry is written again at once.
    this.redis.on("ready", () => void this.beat());
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat(), Math.max(250, this.ttlMs / 4));
    this.heartbeat.unref();
  }

  started(session: Session): void {
    const at = String(Date.now());
    this.redis
      .multi()
      .hset(KEY.session(session.id), {
        owner: this.me.id,
        url: this.me.url,
        project: session.project,
        status: "RUNNING",
        lastSeen: at,
      })
      .pexpire(KEY.session(session.id), this.ttlMs)
      .hset(KEY.instance(this.me.id), "room", this.me.room())
      .exec()
      .catch(() => {});
  }

  ended(session: Session): void {
    this.redis
      .multi()
      .del(KEY.session(session.id))
      .publish(KEY.ended, session.id)
      .hset(KEY.instance(this.me.id), "room", this.me.room())
      .exec()
      .catch(() => {});
  }

  /** Where the session with this id lives. */
  async route(sessionId: string): Promise<Route> {
    const named = ownerOf(sessionId);
    if (!named || named === this.me.id) return { kind: "here" };
    let owner = this.owners.get(sessionId);
    if (!owner) {
      const entry = await this.redis.hget(KEY.session(sessionId), "owner").catch(() => null);
      // A registry miss (ended, or Redis restarted empty or unreachable): the id says.
      owner = entry ?? named;
      if (entry) this.remember(sessionId, entry);
    }
    if (owner === this.me.id) return { kind: "here" };
    if (this.dead.has(owner)) return { kind: "gone", instance: owner };
    const known = this.instances.get(owner);
    if (known && Date.now() - known.seenAt < this.ttlMs) return { kind: "owner", instance: known };
    const read = await this.readInstance(owner).catch(() => "unreachable" as const);
    if (read === "unreachable") {
      return known ? { kind: "owner", instance: known } : { kind: "unknown", instance: owner };
    }
    return read ? { kind: "owner", instance: read } : { kind: "gone", instance: owner };
  }

  /** Other live instances with room for a session, the roomiest first. */
  withRoom(): InstanceView[] {
    const fresh = Date.now() - this.ttlMs;
    return [...this.instances.values()]
      .filter((i) => i.room > 0 && i.seenAt > fresh && !this.dead.has(i.id))
      .sort((a, b) => b.room - a.room);
  }

  /** Its internal address refused a connection: no process listens there any more. */
  markDead(instance: string): void {
    this.dead.set(instance, Date.now());
    this.instances.delete(instance);
  }

  /** Stops the heartbeat and removes this instance's entries (its sessions are ended by now). */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.beating;
    await this.redis
      .multi()
      .del(KEY.instance(this.me.id))
      .srem(KEY.instances, this.me.id)
      .exec()
      .catch(() => {});
  }

  private remember(sessionId: string, owner: string): void {
    if (this.owners.size > 50_000) this.owners.clear();
    this.owners.set(sessionId, owner);
  }

  /** The instance's entry from Redis; null when it has none (it stopped, or never was). */
  private async readInstance(id: string): Promise<InstanceView | null> {
    const entry = await this.redis.hgetall(KEY.instance(id));
    if (!entry.url) return null;
    const view = { id, url: entry.url, room: Number(entry.room) || 0, seenAt: Date.now() };
    this.instances.set(id, view);
    return view;
  }

  /** One heartbeat: this instance's entries renewed, the others' read. Never two at once. */
  private beat(): Promise<void> {
    this.beating ??= this.renewAndRead().finally(() => {
      this.beating = undefined;
    });
    return this.beating;
  }

  private async renewAndRead(): Promise<void> {
    const now = String(Date.now());
    const write = this.redis
      .multi()
      .hset(KEY.instance(this.me.id), { url: this.me.url, room: this.me.room(), at: now })
      .pexpire(KEY.instance(this.me.id), this.ttlMs)
      .sadd(KEY.instances, this.me.id);
    for (const session of this.me.sessions()) {
      write
        .hset(KEY.session(session.id), {
          owner: this.me.id,
          url: this.me.url,
          project: session.project,
          status: "RUNNING",
          lastSeen: String(session.lastUsed),
        })
        .pexpire(KEY.session(session.id), this.ttlMs);
    }
    try {
      await write.exec();
      const ids = (await this.redis.smembers(KEY.instances)).filter((id) => id !== this.me.id);
      const read = this.redis.multi();
      for (const id of ids) read.hgetall(KEY.instance(id));
      const entries = (await read.exec()) ?? [];
      const gone: string[] = [];
      ids.forEach((id, i) => {
        const entry = entries[i]?.[1] as Record<string, string> | undefined;
        if (!entry?.url) {
          gone.push(id);
          this.instances.delete(id);
          return;
        }
        // Renewed after it refused us: it is back (a network blip, not a crash).
        const deadSince = this.dead.get(id);
        if (deadSince !== undefined) {
          if (Number(entry.at) <= deadSince) return;
          this.dead.delete(id);
        }
        this.instances.set(id, {
          id,
          url: entry.url,
          room: Number(entry.room) || 0,
          seenAt: Date.now(),
        });
      });
      if (gone.length) await this.redis.srem(KEY.instances, ...gone);
    } catch {
      // Redis is away: what this instance saw last stands until it is back.
    }
  }
}
