/**
 * The shared registry (DESIGN.md, "The service: state and scale"): each instance's entry (its
 * internal URL and room for sessions) and each session's (owner instance, internal URL,
 * project, status, last seen), both renewed by the owner's heartbeat and gone a TTL after it
 * stops; and the session-ended events, published for whoever watches. It answers where a
 * session lives, from the owner its id names: here, on a live owner (its URL), or nowhere any
 * more (its owner is gone: 410).
 *
 * Redis may restart empty or be unreachable for a while: the owner keeps its sessions, a lookup
 * falls back on the addresses of the instances this one has seen, and the next heartbeat after
 * Redis is back writes every entry again.
 */
import type { ChainableCommander, Redis } from "ioredis";
import type { Session } from "../session.js";
import type { SessionWatcher } from "../sessions.js";
import { listening } from "./forward.js";
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
  /** Its own heartbeat's stamp, as it wrote it (its clock, compared only with itself). */
  at: string;
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
  /** Instances found dead (their address refused us), with the heartbeat stamp seen last. */
  private readonly dead = new Map<string, string>();
  /** The address of every instance seen, kept after its entry is gone (to check on it). */
  private readonly addresses = new Map<string, string>();
  /** When Redis last became ready: entries may still be missing for a TTL after. */
  private readyAt = Date.now();
  private heartbeat: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly me: Me,
    private readonly ttlMs: number,
  ) {}

  /** Writes this instance's entry, reads the others', and keeps both fresh. */
  async start(): Promise<void> {
    // Redis back after a restart (maybe empty): every entry is written again at once.
    this.redis.on("ready", () => {
      this.readyAt = Date.now();
      void this.beat();
    });
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat(), Math.max(250, this.ttlMs / 4));
    this.heartbeat.unref();
  }

  started(session: Session): void {
    this.writeSession(this.redis.multi(), session)
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

  /**
   * Where the session with this id lives. Its id names its owner (the owner made it), so this
   * is the owner's entry: its address, or whether it is gone.
   */
  async route(sessionId: string): Promise<Route> {
    const owner = ownerOf(sessionId);
    if (!owner || owner === this.me.id) return { kind: "here" };
    if (this.dead.has(owner)) return { kind: "gone", instance: owner };
    const known = this.instances.get(owner);
    if (known && Date.now() - known.seenAt < this.ttlMs) return { kind: "owner", instance: known };
    const read = await this.readInstance(owner).catch(() => "unreachable" as const);
    if (read && read !== "unreachable") return { kind: "owner", instance: read };
    const url = this.addresses.get(owner);
    if (read === "unreachable") {
      // Redis is away: the address last seen, if any; a forward finds out the rest.
      return url
        ? { kind: "owner", instance: viewOf(owner, url) }
        : { kind: "unknown", instance: owner };
    }
    // No entry. Gone only when its address refuses us: an owner whose entry is late (Redis
    // just came back empty, a stalled heartbeat) still answers there.
    if (!url) {
      const settling = Date.now() - this.readyAt < this.ttlMs;
      return settling ? { kind: "unknown", instance: owner } : { kind: "gone", instance: owner };
    }
    const up = await listening(url);
    if (up === false) {
      this.markDead(owner);
      return { kind: "gone", instance: owner };
    }
    return up
      ? { kind: "owner", instance: viewOf(owner, url) }
      : { kind: "unknown", instance: owner };
  }

  /** The instance is listed in Redis and was not found dead (for forwards under way). */
  isListed(instance: string): boolean {
    return this.instances.has(instance) && !this.dead.has(instance);
  }

  /** Other live instances with room for a session, the roomiest first. */
  withRoom(): InstanceView[] {
    return this.peers()
      .filter((i) => i.room > 0)
      .sort((a, b) => b.room - a.room);
  }

  /** Other live instances, as their last heartbeats said. */
  peers(): InstanceView[] {
    const fresh = Date.now() - this.ttlMs;
    return [...this.instances.values()].filter((i) => i.seenAt > fresh && !this.dead.has(i.id));
  }

  /** Its internal address refused a connection: no process listens there any more. */
  markDead(instance: string): void {
    this.dead.set(instance, this.instances.get(instance)?.at ?? "");
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

  /** A session's entry, with its TTL, added to `batch`. */
  private writeSession(batch: ChainableCommander, session: Session): ChainableCommander {
    return batch
      .hset(KEY.session(session.id), {
        owner: this.me.id,
        url: this.me.url,
        project: session.project,
        status: "RUNNING",
        lastSeen: String(session.lastUsed),
      })
      .pexpire(KEY.session(session.id), this.ttlMs);
  }

  private saw(id: string, entry: Record<string, string>): InstanceView {
    const view = {
      id,
      url: entry.url ?? "",
      room: Number(entry.room) || 0,
      seenAt: Date.now(),
      at: entry.at ?? "",
    };
    this.instances.set(id, view);
    if (this.addresses.size > 10_000) this.addresses.clear();
    this.addresses.set(id, view.url);
    return view;
  }

  /** The instance's entry from Redis; null when it has none (it stopped, or never was). */
  private async readInstance(id: string): Promise<InstanceView | null> {
    const entry = await this.redis.hgetall(KEY.instance(id));
    if (!entry.url) return null;
    return this.saw(id, entry);
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
    for (const session of this.me.sessions()) this.writeSession(write, session);
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
        // Renewed since it refused us: it is back (a network blip, not a crash).
        const deadAt = this.dead.get(id);
        if (deadAt !== undefined) {
          if (entry.at === deadAt) return;
          this.dead.delete(id);
        }
        this.saw(id, entry);
      });
      if (gone.length) await this.redis.srem(KEY.instances, ...gone);
    } catch {
      // Redis is away: what this instance saw last stands until it is back.
    }
  }
}

/** An instance known only by its address (its entry is missing or unreadable now). */
const viewOf = (id: string, url: string): InstanceView => ({ id, url, room: 0, seenAt: 0, at: "" });
