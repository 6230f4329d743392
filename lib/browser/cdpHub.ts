/**
 * One browser's CDP pipe shared by everyone who drives it: our own Playwright on the pipe's root
 * session, and each remote client on a browser session of its own (`Target.attachToBrowserTarget`),
 * as if each had its own connection. A client's message ids are renumbered into a range of their
 * own and its answers numbered back; the sessions it attaches (and those they auto-attach) are
 * its own, and a message naming a session it does not own never reaches the browser. Whatever a
 * client's session enabled ends with it: the hub detaches it when the client goes.
 *
 * The hub judges nothing: what a client may send is decided before `send` (the service's CDP
 * policy). It parses each message from the browser once; Playwright takes the parsed object.
 *
 * What it holds is bounded: commands awaiting an answer, per client and for all clients
 * together (one past either is answered with an error at once), and what the browser sends (the
 * pipe's cap per message). An answer past that cap fails the one command that asked for it; any
 * other message past it, or one that is not JSON, is a breach: the hub closes the pipe (the
 * browser exits with it) and tells why, so that the session ends, never the process.
 */
import type { CdpPipe, OversizedMessage } from "./cdpPipe.js";

/** A CDP message as it crosses the pipe. */
export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  sessionId?: string;
}

/** What Playwright's `connectOverCDP(transport)` takes. */
export interface CdpTransport {
  send(message: object): void;
  close(): void;
  onmessage?: (message: object) => void;
  onclose?: (reason?: string) => void;
}

/** A remote client's view of the browser: its own connection, as far as it can tell. */
export interface HubClient {
  /** Sends one command (see the hub's `pendingBytes` for what waits for the browser). */
  send(message: CdpMessage): void;
  close(): void;
}

export interface ClientHandlers {
  receive(message: CdpMessage): void;
  /** The browser went away (the client's close is not told back to it). */
  closed(reason: string): void;
}

/** Commands one client may have awaiting the browser's answer at once. */
export const CLIENT_MAX_IN_FLIGHT = 1_024;
/** Commands all of a browser's clients together may have awaiting its answer at once. */
export const HUB_MAX_IN_FLIGHT = 2_048;

/** Our Playwright numbers from 1; clients get ids from here on, the hub's own calls the top range. */
const CLIENT_IDS = 2 ** 30;
const HUB_IDS = 2 ** 31 - 2 ** 20;
const ID_END = 2 ** 31 - 1;
const ATTACHES = new Set(["Target.attachToTarget", "Target.attachToBrowserTarget"]);

interface Peer {
  receive(message: CdpMessage): void;
}

interface Pending {
  peer: Peer;
  id: number;
  /** A command whose answer names a new session (owned by `peer`). */
  attaches: boolean;
}

export class CdpHub {
  private readonly pending = new Map<number, Pending>();
  /** Every session of a client or of the hub, by id; absent ones are our Playwright's. */
  private readonly owners = new Map<string, Peer>();
  private readonly clients = new Set<Client>();
  private readonly calls = new Map<
    number,
    { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }
  >();
  private nextClientId = CLIENT_IDS;
  private nextHubId = HUB_IDS;
  private hubSession: string | undefined;
  private ended: string | undefined;
  private readonly root: CdpTransport;
  private readonly self: Peer = { receive: (message) => this.hubMessage(message) };
  /** Clients' commands awaiting the browser, all together (the hub's own are not counted). */
  private clientsInFlight = 0;
  private readonly breachListeners: ((reason: string) => void)[] = [];
  private pageCap:
    | { max: number; onClosed: (url: string) => void; open: Set<string>; refused: Set<string> }
    | undefined;

  constructor(private readonly pipe: CdpPipe) {
    const hub = this;
    this.root = {
      send(message) {
        pipe.write(JSON.stringify(message));
      },
      // Playwright letting go (its browser.close()) ends nothing here: the launcher owns the process.
      close() {
        const { onclose } = hub.root;
        hub.root.onmessage = undefined;
        hub.root.onclose = undefined;
        onclose?.("closed");
      },
    };
    pipe.onMessage((text) => this.fromBrowser(text));
    pipe.onOversized((message) => this.oversized(message));
    pipe.onClose(() => this.end("the browser ended"));
  }

  /** Told once, with why, when the browser sent what the hub cannot take (the browser is ended). */
  onBreach(listener: (reason: string) => void): void {
    this.breachListeners.push(listener);
  }

  /** Opens the hub's own browser session; call once, before Playwright connects. */
  async start(): Promise<void> {
    const { sessionId } = await this.call("Target.attachToBrowserTarget", {}, undefined);
    if (typeof sessionId !== "string") throw new Error("the browser opened no session for the hub");
    this.hubSession = sessionId;
    this.owners.set(sessionId, this.self);
  }

  /** The transport our Playwright connects over (the pipe's root session). */
  get transport(): CdpTransport {
    return this.root;
  }

  /** A new client on a browser session of its own. */
  async connect(handlers: ClientHandlers): Promise<HubClient> {
    if (this.ended) throw new Error(`cannot connect: ${this.ended}`);
    const { sessionId } = await this.call("Target.attachToBrowserTarget", {});
    if (typeof sessionId !== "string") throw new Error("the browser opened no session");
    const client = new Client(this, sessionId, handlers);
    this.owners.set(sessionId, client);
    this.clients.add(client);
    return client;
  }

  /**
   * Closes every page target past `max` as it is created, whoever opened it (a page's popup, a
   * client's `Target.createTarget`) and in whichever browser context: the browser's own count,
   * not what our Playwright has been told of.
   */
  async capPages(max: number, onClosed: (url: string) => void): Promise<void> {
    this.pageCap = { max, onClosed, open: new Set(), refused: new Set() };
    await this.call("Target.setDiscoverTargets", { discover: true });
  }

  /** The page cap, when one is set, and how many pages are open against it. */
  get pages(): { open: number; max: number } | undefined {
    return this.pageCap && { open: this.pageCap.open.size, max: this.pageCap.max };
  }

  /** A command on the hub's own session (or the root session before start). */
  call(
    method: string,
    params: Record<string, unknown> = {},
    sessionId: string | undefined = this.hubSession,
  ): Promise<Record<string, unknown>> {
    if (this.ended) return Promise.reject(new Error(`${method}: ${this.ended}`));
    const id = this.nextHubId;
    this.nextHubId = id + 1 >= ID_END ? HUB_IDS : id + 1;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.pending.set(id, { peer: this.self, id, attaches: ATTACHES.has(method) });
      this.pipe.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /** Bytes written to the browser that it has not taken yet. */
  get pendingBytes(): number {
    return this.pipe.pending;
  }

  /** Told when the browser has taken everything written; answers a function that stops it. */
  onDrain(listener: () => void): () => void {
    return this.pipe.onDrain(listener);
  }

  /** @internal A client's command, renumbered and sent on the session it names (its own). */
  forward(client: Client, message: CdpMessage): void {
    const sessionId = message.sessionId ?? client.sessionId;
    if (this.owners.get(sessionId) !== client) {
      client.receive({
        id: message.id,
        error: { code: -32001, message: "Session with given id not found." },
        ...(message.sessionId ? { sessionId: message.sessionId } : {}),
      });
      return;
    }
    const crowded =
      client.inFlight >= CLIENT_MAX_IN_FLIGHT
        ? `this connection has ${CLIENT_MAX_IN_FLIGHT} commands awaiting the browser's answer, the most one may have`
        : this.clientsInFlight >= HUB_MAX_IN_FLIGHT
          ? `this browser's connections have ${HUB_MAX_IN_FLIGHT} commands awaiting its answer, the most they may have together`
          : undefined;
    if (crowded) {
      client.receive({
        id: message.id,
        error: {
          code: -32000,
          message: `Too many commands in flight: ${crowded}; wait for answers.`,
        },
        ...(message.sessionId ? { sessionId: message.sessionId } : {}),
      });
      return;
    }
    const id = this.nextClientId;
    this.nextClientId = id + 1 >= HUB_IDS ? CLIENT_IDS : id + 1;
    this.pending.set(id, {
      peer: client,
      id: message.id as number,
      attaches: ATTACHES.has(message.method ?? ""),
    });
    client.inFlight++;
    this.clientsInFlight++;
    this.pipe.write(
      JSON.stringify({ id, method: message.method, params: message.params ?? {}, sessionId }),
    );
  }

  /** @internal A client gone: its sessions are detached, its answers still under way dropped. */
  release(client: Client): void {
    if (!this.clients.delete(client)) return;
    const owned: string[] = [];
    for (const [sessionId, peer] of this.owners) if (peer === client) owned.push(sessionId);
    for (const sessionId of owned) this.owners.delete(sessionId);
    for (const [id, pending] of this.pending) {
      if (pending.peer === client) this.settled(id, pending);
    }
    // Children first: what they enabled (interception, paused targets) is let go of with them.
    for (const sessionId of owned.reverse()) {
      this.call("Target.detachFromTarget", { sessionId }).catch(() => {});
    }
  }

  /** A command of a client's answered (or given up): it no longer counts against the caps. */
  private settled(id: number, pending: Pending): void {
    this.pending.delete(id);
    if (pending.peer === this.self) return;
    (pending.peer as Client).inFlight--;
    this.clientsInFlight--;
  }

  private fromBrowser(text: string): void {
    let message: CdpMessage;
    try {
      message = JSON.parse(text) as CdpMessage;
      if (typeof message !== "object" || message === null) throw new Error("not an object");
    } catch {
      this.breach(
        `the browser sent a message that is not a JSON object (${text.length} characters)`,
      );
      return;
    }
    this.deliver(message);
  }

  /** Hands a message on; whatever throws on the way ends this browser, not the process. */
  private deliver(message: CdpMessage): void {
    try {
      this.route(message);
    } catch (error) {
      this.breach(
        `a message from its browser could not be handed on (${String(error).slice(0, 200)})`,
      );
    }
  }

  /**
   * A message past the pipe's cap. Its edges say what it was: CDP writes an answer's id first
   * and an event's method first, and a session's id last.
   */
  private oversized({ bytes, head, tail }: OversizedMessage): void {
    const size = sizeText(bytes);
    const id = /^\{"id":(\d+)[,}]/.exec(head)?.[1];
    if (id !== undefined) {
      const sessionId = /"sessionId":"([0-9A-Fa-f]+)"\}$/.exec(tail)?.[1];
      this.deliver({
        id: Number(id),
        error: {
          code: -32000,
          message: `The browser's answer was ${size}, more than the ${sizeText(this.pipe.maxMessageBytes)} a message from the browser may be: ask for less (a smaller value, a clip, a stream).`,
        },
        ...(sessionId ? { sessionId } : {}),
      });
      return;
    }
    const method = /^\{"method":"([\w.]+)"/.exec(head)?.[1];
    this.breach(
      `its browser sent a ${size} message${method ? ` (${method})` : ""}, more than the ${sizeText(this.pipe.maxMessageBytes)} one may be (a page can make it do so, by a huge error or log line)`,
    );
  }

  /** The browser sent what cannot be taken: it is ended, and those who listen are told why. */
  private breach(reason: string): void {
    if (this.ended) return;
    for (const listener of this.breachListeners.splice(0)) {
      try {
        listener(reason);
      } catch {
        // A listener's failure must not keep the browser running.
      }
    }
    this.end(reason);
    this.pipe.close();
  }

  private route(message: CdpMessage): void {
    if (typeof message.id === "number" && message.id >= CLIENT_IDS) {
      const pending = this.pending.get(message.id);
      if (!pending) return; // an answer for a client that has gone
      this.settled(message.id, pending);
      const sessionId = message.result?.sessionId;
      if (pending.attaches && typeof sessionId === "string")
        this.owners.set(sessionId, pending.peer);
      if (pending.peer !== this.self) message.id = pending.id;
      pending.peer.receive(message);
      return;
    }
    const owner = message.sessionId === undefined ? undefined : this.owners.get(message.sessionId);
    if (!owner && this.keptFromPlaywright(message)) return;
    if (!owner) {
      // One message per task, as Playwright's own pipe transport hands them over: its CDP layer
      // lets the promises an answer settles run before the next event (popups it never
      // reported, under load, without this).
      setImmediate(() => {
        try {
          this.root.onmessage?.(message);
        } catch (error) {
          // Playwright asserts what the browser sends (an answer to no command of its own).
          this.breach(
            `its browser sent a message Playwright could not take (${String(error).slice(0, 200)})`,
          );
        }
      });
      return;
    }
    const child = message.params?.sessionId;
    if (message.method === "Target.attachedToTarget" && typeof child === "string") {
      this.owners.set(child, owner);
    } else if (message.method === "Target.detachedFromTarget" && typeof child === "string") {
      this.owners.delete(child);
    }
    owner.receive(message);
  }

  /** The answer to one of the hub's own calls, or an event of the targets it watches. */
  private hubMessage(message: CdpMessage): void {
    if (message.id !== undefined) {
      const call = this.calls.get(message.id);
      this.calls.delete(message.id);
      if (message.error) call?.reject(new Error(message.error.message));
      else call?.resolve(message.result ?? {});
      return;
    }
    const cap = this.pageCap;
    const info = message.params?.targetInfo as { targetId?: string; type?: string; url?: string };
    if (!cap) return;
    if (message.method === "Target.targetCreated" && info?.type === "page" && info.targetId) {
      if (this.admitted(info.targetId)) return;
      void this.closeNew(info.targetId);
      cap.onClosed(info.url ?? "");
    } else if (message.method === "Target.targetDestroyed") {
      const targetId = String(message.params?.targetId);
      cap.open.delete(targetId);
      cap.refused.delete(targetId);
    }
  }

  /** Whether a new page target fits under the cap; decided once per target, when first seen. */
  private admitted(targetId: string): boolean {
    const cap = this.pageCap;
    if (!cap || cap.open.has(targetId)) return true;
    if (cap.refused.has(targetId)) return false;
    if (cap.open.size < cap.max) {
      cap.open.add(targetId);
      return true;
    }
    cap.refused.add(targetId);
    return false;
  }

  /**
   * A page past the cap is never shown to our Playwright: it would set the page up (a dozen
   * commands, its own sessions) only to see it closed, while the opener waits in window.open
   * for it to run. The hub lets it run on Playwright's session instead, and it is closed; a
   * page opening a thousand windows then gets through them in a moment, not in minutes.
   */
  private keptFromPlaywright(message: CdpMessage): boolean {
    if (!this.pageCap || message.method !== "Target.attachedToTarget") return false;
    const info = message.params?.targetInfo as { targetId?: string; type?: string } | undefined;
    const child = message.params?.sessionId;
    if (info?.type !== "page" || !info.targetId || typeof child !== "string") return false;
    if (this.admitted(info.targetId)) return false;
    this.call("Runtime.runIfWaitingForDebugger", {}, child).catch(() => {});
    return true;
  }

  /**
   * Closes a page that was just made. A new target waits for each auto-attached client to let
   * it run, and a popup shares its opener's renderer: closed while it waits, neither ever runs
   * again (the opener's script hangs in window.open). So the hub lets it run first.
   */
  private async closeNew(targetId: string): Promise<void> {
    try {
      const { sessionId } = await this.call("Target.attachToTarget", { targetId, flatten: true });
      if (typeof sessionId === "string") {
        await this.call("Runtime.runIfWaitingForDebugger", {}, sessionId).catch(() => {});
      }
    } catch {
      // Gone already, or not attachable: closing is still worth a try.
    }
    await this.call("Target.closeTarget", { targetId }).catch(() => {});
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = reason;
    for (const call of this.calls.values()) call.reject(new Error(reason));
    this.calls.clear();
    this.pending.clear();
    this.clientsInFlight = 0;
    for (const client of [...this.clients]) client.browserGone(reason);
    this.clients.clear();
    const { onclose } = this.root;
    this.root.onmessage = undefined;
    this.root.onclose = undefined;
    onclose?.(reason);
  }
}

/** `572 MB`; `5 KB` below a megabyte. */
function sizeText(bytes: number): string {
  return bytes >= 2 ** 20 ? `${Math.round(bytes / 2 ** 20)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

class Client implements HubClient, Peer {
  private open = true;
  /** Its commands awaiting the browser's answer. */
  inFlight = 0;

  constructor(
    private readonly hub: CdpHub,
    /** The client's browser session: what its messages without a session id go to. */
    readonly sessionId: string,
    private readonly handlers: ClientHandlers,
  ) {}

  send(message: CdpMessage): void {
    if (!this.open) return;
    if (!Number.isInteger(message.id) || typeof message.method !== "string") {
      this.receive({
        ...(Number.isInteger(message.id) ? { id: message.id } : {}),
        error: {
          code: -32600,
          message: "Message must have integer 'id' and string 'method' properties",
        },
      });
      return;
    }
    this.hub.forward(this, message);
  }

  receive(message: CdpMessage): void {
    if (!this.open) return;
    if (message.sessionId === this.sessionId) delete message.sessionId;
    this.handlers.receive(message);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.hub.release(this);
  }

  browserGone(reason: string): void {
    if (!this.open) return;
    this.open = false;
    this.handlers.closed(reason);
  }
}
