/**
 * Blank browsers launched before a `/start` asks for one (WAYFARER_WARM_BROWSERS), so that a
 * session starts in the time it takes to hand one over instead of a Chromium launch. Each is
 * launched exactly as a session's browser with default launch options would be (its own launch
 * folder, CDP over a pipe, its own browser user, its own egress guard under the service's rule),
 * serves one session and ends with it; it is never given back once a session has used it. A
 * browser that dies while it waits is dropped, never handed out, and another is launched.
 *
 * The pool shares WAYFARER_MAX_SESSIONS with the sessions: it never holds more browsers than
 * the room left (live and starting sessions plus waiting browsers stay within it), and a
 * session launched fresh while the instance is near full ends a waiting browser to make room.
 * It fills once the service listens, and again after each browser it hands out or loses. While
 * memory is short (lib/service/memoryAvailable.ts) it stands down: it launches nothing and ends
 * the browsers waiting, so that what they held goes to live sessions; it says so in the
 * service's log, and fills again once memory is back (looked at with the idle sessions).
 */
import { readFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import type { Page } from "playwright-core";
import { openEgressProxy } from "../browser/egressHost.js";
import type { EgressProxy } from "../browser/egressProxy.js";
import { type LaunchedBrowser, launchBrowser } from "../browser/launch.js";
import { behindGuard, type WarmBrowser } from "../engine/localEngine.js";
import { launchProfile } from "../engine/select.js";
import type { AddressRule } from "../net/addressRule.js";
import { LocalBrowserLaunchOptionsSchema } from "../options.js";
import { readableReason } from "../readableError.js";
import { untilAborted } from "../timeout.js";
import type { BrowserUsers } from "./browserUsers.js";

/** As a session's own launch may take (lib/engine/select.ts). */
const LAUNCH_TIMEOUT_MS = 30_000;
/** After a launch that failed or a browser lost while waiting: the wait before the next, doubling. */
const RETRY_MS = { first: 1_000, most: 60_000 };

/**
 * The default of WAYFARER_WARM_BROWSERS: one per two cores and per 4 GiB of memory, 2 at most.
 * A waiting browser holds memory (about 75 MB of its own), and its refill is a launch that
 * competes with the sessions for CPU; past two, bursts are what it would serve, and the
 * operator knows them.
 */
export function machineWarmBrowsers(
  cores = availableParallelism(),
  memoryBytes = totalmem(),
): number {
  return Math.max(0, Math.min(2, Math.floor(cores / 2), Math.floor(memoryBytes / 2 ** 32)));
}

/** A waiting browser handed to a session: the session's id is the one it was launched under. */
export interface TakenBrowser {
  id: string;
  warm: WarmBrowser;
  /** How long it had waited (kept if it is given back). */
  waitedMs: number;
}

export interface WarmPoolParts {
  /** WAYFARER_WARM_BROWSERS. */
  size: number;
  /** WAYFARER_MAX_SESSIONS. */
  capacity: number;
  /** Browsers held beside the pool's: live sessions and those starting. */
  others(): number;
  /** A new session id: a waiting browser's user is held under the id of the session it will serve. */
  newId(): string;
  users: BrowserUsers;
  rule: AddressRule;
  /** The service's log (a launch that failed, a browser lost while waiting). */
  warn(line: string): void;
  /** Whether memory is short now (memoryIsShort, or a test's). */
  memoryShort(): boolean;
}

interface Waiting {
  id: string;
  warm: WarmBrowser;
  since: number;
  lost: () => void;
}

export class WarmBrowsers {
  private readonly waiting: Waiting[] = [];
  /** Launches under way (close() waits for them); `pending` of them not yet done. */
  private readonly launching = new Set<Promise<void>>();
  private pending = 0;
  private readonly stopper = new AbortController();
  private filling = false;
  private closed = false;
  /** Launches failed and browsers lost since one was last handed out: the retry's backoff. */
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  /** Stood down for want of memory (said once in the log each way). */
  private short = false;

  constructor(private readonly parts: WarmPoolParts) {}

  /** From now on the pool keeps itself full (the service listens). */
  start(): void {
    this.filling = true;
    this.fill();
  }

  /** Browsers waiting, ready to hand out. */
  get ready(): number {
    return this.waiting.length;
  }

  /** Browsers the pool holds against WAYFARER_MAX_SESSIONS: waiting, and being launched. */
  get held(): number {
    return this.waiting.length + this.pending;
  }

  /** The PIDs of the waiting browsers (tests look at them). */
  get pids(): number[] {
    return this.waiting.flatMap((w) =>
      w.warm.launched.pid === undefined ? [] : [w.warm.launched.pid],
    );
  }

  /** Launches what is missing, within the room the sessions leave. */
  fill(): void {
    if (!this.filling || this.closed || this.retry || this.shortOfMemory()) return;
    const { size, capacity, others } = this.parts;
    while (this.held < size && others() + this.held < capacity) {
      this.pending++;
      const launch: Promise<void> = this.launchOne().finally(() => this.launching.delete(launch));
      this.launching.add(launch);
    }
  }

  /**
   * The oldest waiting browser that is still alive, taken out of the pool (its room passes to
   * the session being started); undefined when none is ready. Synchronous: the browser moves
   * from the pool to the starting sessions in one step. The pool is filled again once the
   * session has its browser (fill()), so the next launch does not compete with this start.
   */
  take(): TakenBrowser | undefined {
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
      const taken = next;
      taken.warm.launched.browser.off("disconnected", taken.lost);
      if (alive(taken.warm.launched)) {
        this.failures = 0;
        return { id: taken.id, warm: taken.warm, waitedMs: Date.now() - taken.since };
      }
      void this.end(taken);
      this.failed(`a warm browser (pid ${taken.warm.launched.pid}) had ended while it waited`);
    }
    return undefined;
  }

  /** A taken browser its session never used (the start was refused first): waiting again. */
  giveBack(taken: TakenBrowser): void {
    const entry = this.entry(taken.id, taken.warm, Date.now() - taken.waitedMs);
    if (this.closed || !taken.warm.launched.browser.isConnected()) {
      void this.end(entry);
      return;
    }
    taken.warm.launched.browser.once("disconnected", entry.lost);
    this.waiting.unshift(entry);
    // Once the refused start no longer counts as starting: trimmed now, near full, the browser
    // it gave back would be ended for its room, and relaunched (a launch for every refusal).
    setImmediate(() => this.trim());
  }

  /**
   * Ends waiting browsers past the room the sessions leave (a session launched fresh takes it),
   * and every waiting one while memory is short.
   */
  trim(): void {
    const short = this.waiting.length > 0 && this.shortOfMemory();
    while (
      this.waiting.length &&
      (short || this.parts.others() + this.held > this.parts.capacity)
    ) {
      const last = this.waiting.pop();
      if (last) {
        last.warm.launched.browser.off("disconnected", last.lost);
        void this.end(last);
      }
    }
  }

  /** Looked at now and then (with the idle sessions): stand down while short, fill once not. */
  checkMemory(): void {
    this.trim();
    this.fill();
  }

  /** Ends every waiting browser and every launch under way; nothing is launched after. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.stopper.abort(new Error("the service is stopping"));
    await Promise.allSettled([...this.launching]);
    await Promise.all(this.waiting.splice(0).map((w) => this.end(w)));
  }

  /** One browser into the pool; `pending` counts it until it waits there or has failed. */
  private async launchOne(): Promise<void> {
    const id = this.parts.newId();
    let egress: EgressProxy | undefined;
    let launched: LaunchedBrowser | undefined;
    let listener: ((target: string, reason: string) => void) | undefined;
    try {
      const runAs = this.parts.users.take(id);
      egress = await openEgressProxy({
        rule: this.parts.rule,
        // Nothing is loaded before a session takes it; from then on, the session's log hears.
        onRefused: (target, reason) => listener?.(target, reason),
      });
      launched = await launchBrowser({
        options: behindGuard(DEFAULT_LAUNCH, egress.url).options,
        profile: launchProfile(),
        timeoutMs: LAUNCH_TIMEOUT_MS,
        signal: this.stopper.signal,
        pipe: true,
        ...(runAs ? { runAs } : {}),
      });
      await firstPage(launched, this.stopper.signal);
    } catch (error) {
      await launched?.terminate(true);
      await egress?.close();
      this.parts.users.give(id);
      this.pending--;
      if (!this.closed)
        this.failed(`a warm browser could not be launched: ${readableReason(error)}`);
      return;
    }
    this.pending--;
    const warm: WarmBrowser = {
      launched,
      egress,
      hearRefusals: (heard) => {
        listener = heard;
      },
    };
    const entry = this.entry(id, warm, Date.now());
    if (this.closed || !launched.browser.isConnected()) return this.end(entry);
    launched.browser.once("disconnected", entry.lost);
    this.waiting.push(entry);
    // Room may have gone while it launched (sessions launched fresh meanwhile).
    this.trim();
  }

  private entry(id: string, warm: WarmBrowser, since: number): Waiting {
    const entry: Waiting = {
      id,
      warm,
      since,
      lost: () => {
        const at = this.waiting.indexOf(entry);
        if (at === -1 || this.closed) return;
        this.waiting.splice(at, 1);
        void this.end(entry);
        this.failed(`a warm browser (pid ${warm.launched.pid}) ended while it waited`);
      },
    };
    return entry;
  }

  /** Its browser ended, its folder removed, its guard closed, then its user free again. */
  private async end(entry: Waiting): Promise<void> {
    await entry.warm.launched.terminate(true).catch(() => {});
    await entry.warm.egress.close().catch(() => {});
    this.parts.users.give(entry.id);
  }

  /** Whether memory is short now; a change either way is said in the service's log. */
  private shortOfMemory(): boolean {
    const short = this.parts.memoryShort();
    if (short !== this.short) {
      this.short = short;
      this.parts.warn(
        short
          ? "warning: memory is short: no warm browser is kept until it is not (WAYFARER_WARM_BROWSERS)"
          : "memory is available again: warm browsers are kept as before (WAYFARER_WARM_BROWSERS)",
      );
    }
    return short;
  }

  /** Said in the service's log; the next launch waits longer each time, until one is taken. */
  private failed(what: string): void {
    this.failures++;
    const waitMs =
      this.failures <= 1 ? 0 : Math.min(RETRY_MS.most, RETRY_MS.first * 2 ** (this.failures - 2));
    this.parts.warn(`warning: ${what}; another in ${Math.round(waitMs / 1000)} s`);
    // Never at once: take() finds a dead one before its start counts as starting.
    if (waitMs === 0) {
      setImmediate(() => this.fill());
      return;
    }
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.fill();
    }, waitMs).unref();
  }
}

/** What a `/start` without launch options launches (the session's own options once parsed). */
const DEFAULT_LAUNCH = LocalBrowserLaunchOptionsSchema.parse({});

/**
 * The blank tab a session's first page would be, opened now: it is what a session would open
 * first thing (lib/engine/localEngine.ts), and the engine that takes the browser adopts it.
 * Within the launch's limit, and cut short by the service's stop.
 */
async function firstPage(launched: LaunchedBrowser, signal: AbortSignal): Promise<Page> {
  const context = launched.browser.contexts()[0];
  if (!context) throw new Error("the browser has no default context");
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(LAUNCH_TIMEOUT_MS)]);
  return untilAborted(context.newPage(), bounded);
}

/**
 * Whether the browser is still there: its pipe open, and its process neither gone nor dead and
 * unreaped (killed an instant ago, before its pipe's end reached us). No round trip: a start
 * under load would wait for it (measured: 20 to 200 ms).
 */
function alive(launched: LaunchedBrowser): boolean {
  const { pid } = launched;
  if (!launched.browser.isConnected() || pid === undefined) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    // No /proc (macOS): the signal-0 check; EPERM means it lives, as another user.
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  }
}
