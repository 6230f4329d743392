/**
 * What one project may hold and spend (docs/guide/service.md, "Limits"): sessions at once, and
 * model tokens a minute and a day when the operator's key pays. The counts live in this process
 * (embedded) or in Redis (shared mode: shared/sharedQuotas.ts); the rules and the refusals,
 * here. A refusal is a 429 that names the variable setting the limit.
 */
import { ServiceError } from "../errors.js";
import type { Usage } from "../metrics.js";
import type { ModelConfiguration } from "../model/config.js";
import type { SpendGuard } from "../model/modelClient.js";
import type { ServiceLimits } from "./config.js";

/** A project is at one of its limits: 429, and the message names the variable that sets it. */
export class QuotaExceeded extends ServiceError {
  override name = "QuotaExceeded";
  static override readonly code = "QUOTA_EXCEEDED";
  constructor(
    message: string,
    /** The environment variable that sets the limit. */
    readonly limit: string,
    /** When trying again may succeed, in seconds; undefined: when something of the project ends. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Sessions counted per project: held from before its browser starts until it ends. */
export interface SlotCounter {
  /** Counts the session unless its project holds `max` already: false then, and nothing counted. */
  take(project: string, sessionId: string, max: number): boolean | Promise<boolean>;
  /** The session ended, or its start failed: it counts no more (twice is harmless). */
  release(sessionId: string): void;
}

/** Tokens a project spent in the current minute and UTC day. */
export interface Spent {
  minute: number;
  day: number;
}

export interface TokenCounter {
  spent(project: string, now: number): Spent | Promise<Spent>;
  /** Not awaited by callers: a counter keeps its own errors. */
  add(project: string, tokens: number, now: number): void;
}

export interface QuotaCounters {
  slots: SlotCounter;
  tokens: TokenCounter;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The start of the window `now` falls in: minutes, and days from midnight UTC. */
export const windowStart = (now: number, size: number) => now - (now % size);

/** This process's sessions per project (embedded, and shared mode's while Redis is away). */
export class LocalSlots implements SlotCounter {
  /** Session id → its project. */
  private readonly held = new Map<string, string>();

  take(project: string, sessionId: string, max: number): boolean {
    if (this.held.has(sessionId)) return true;
    let count = 0;
    for (const p of this.held.values()) if (p === project) count++;
    if (count >= max) return false;
    this.held.set(sessionId, project);
    return true;
  }

  release(sessionId: string): void {
    this.held.delete(sessionId);
  }

  projectOf(sessionId: string): string | undefined {
    return this.held.get(sessionId);
  }

  /** The sessions held, for a shared counter that renews them. */
  entries(): [sessionId: string, project: string][] {
    return [...this.held];
  }
}

/** This process's token counts per project, in fixed minute and UTC-day windows. */
export class LocalTokens implements TokenCounter {
  private readonly counts = new Map<
    string,
    { minute: number; m: number; day: number; d: number }
  >();

  spent(project: string, now: number): Spent {
    const c = this.current(project, now);
    return { minute: c.m, day: c.d };
  }

  add(project: string, tokens: number, now: number): void {
    const c = this.current(project, now);
    c.m += tokens;
    c.d += tokens;
  }

  private current(project: string, now: number) {
    const minute = windowStart(now, MINUTE_MS);
    const day = windowStart(now, DAY_MS);
    let c = this.counts.get(project);
    if (!c) {
      if (this.counts.size > 10_000) this.counts.clear();
      c = { minute, m: 0, day, d: 0 };
      this.counts.set(project, c);
    }
    if (c.minute !== minute) Object.assign(c, { minute, m: 0 });
    if (c.day !== day) Object.assign(c, { day, d: 0 });
    return c;
  }
}

export const localCounters = (): QuotaCounters => ({
  slots: new LocalSlots(),
  tokens: new LocalTokens(),
});

/**
 * The configuration that answers a call carries a credential of the caller's: its `apiKey` (the
 * per-call model's, or the session's `x-model-api-key` it inherits) or its own `auth` (Vertex,
 * Azure Entra). Then the caller pays, and the project's token budget does not count the call.
 */
export function callerPays(config: ModelConfiguration | undefined): boolean {
  if (config === undefined || typeof config === "string") return false;
  return Boolean(("apiKey" in config && config.apiKey) || ("auth" in config && config.auth));
}

export class Quotas {
  constructor(
    private readonly limits: ServiceLimits,
    private readonly counters: QuotaCounters = localCounters(),
    /** Told of each refusal (the service's metrics). */
    private readonly tally?: { refused(project: string, limit: string): void },
  ) {}

  /** Counts a session of `project` about to start; QuotaExceeded when the project is at its limit. */
  async takeSlot(project: string, sessionId: string): Promise<void> {
    const max = this.limits.projectSessions;
    if (await this.counters.slots.take(project, sessionId, max)) return;
    this.tally?.refused(project, "WAYFARER_PROJECT_MAX_SESSIONS");
    throw new QuotaExceeded(
      `This key's project has ${max} sessions running, its most at once (WAYFARER_PROJECT_MAX_SESSIONS); end one of them (POST /v1/sessions/{id}/end) and start again.`,
      "WAYFARER_PROJECT_MAX_SESSIONS",
    );
  }

  releaseSlot(sessionId: string): void {
    this.counters.slots.release(sessionId);
  }

  /** The guard of a session's model calls; undefined when no token budget is set. */
  spendGuard(project: string): SpendGuard | undefined {
    const { projectTokensPerMinute: perMinute, projectTokensPerDay: perDay } = this.limits;
    if (!perMinute && !perDay) return undefined;
    const tokens = this.counters.tokens;
    return {
      before: async (config) => {
        if (callerPays(config)) return;
        const now = Date.now();
        const spent = await tokens.spent(project, now);
        const refusal =
          perMinute && spent.minute >= perMinute
            ? budgetSpent(spent.minute, perMinute, "this minute", MINUTE_MS, now)
            : perDay && spent.day >= perDay
              ? budgetSpent(spent.day, perDay, "today (UTC)", DAY_MS, now)
              : undefined;
        if (!refusal) return;
        this.tally?.refused(project, refusal.limit);
        throw refusal;
      },
      spent: (config, usage: Usage) => {
        if (callerPays(config)) return;
        const used = usage.promptTokens + usage.completionTokens;
        if (used > 0) tokens.add(project, used, Date.now());
      },
    };
  }
}

function budgetSpent(
  spent: number,
  limit: number,
  when: string,
  window: number,
  now: number,
): QuotaExceeded {
  const variable =
    window === MINUTE_MS ? "WAYFARER_PROJECT_TOKENS_PER_MINUTE" : "WAYFARER_PROJECT_TOKENS_PER_DAY";
  const wait = Math.ceil((windowStart(now, window) + window - now) / 1000);
  return new QuotaExceeded(
    `This key's project spent ${spent} model tokens on the service's model key ${when}, its budget being ${limit} (${variable}); the model call was not made. Try again in ${wait} s, or send a model key of your own (x-model-api-key at start, or the model's apiKey).`,
    variable,
    wait,
  );
}
