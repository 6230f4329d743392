/**
 * Whom each session's browser runs as (WAYFARER_BROWSER_USERS). A service running as root gives
 * each session's browser a uid of its own from a range, its gid the same number and no other
 * group: its folder is that uid's alone (0700), so no other session's browser, and no page that
 * breaks out of its renderer, can read it. The kernel knows users by number only: no passwd or
 * group entry is made or needed (the browser's HOME is its own folder).
 */
import { z } from "zod";
import type { RunAs } from "../browser/launch.js";
import { ServiceValidationError } from "../errors.js";
import { type BrowserUsersPlan, thisHost, type UsersHost } from "./isolation.js";
import { ServiceFull } from "./serviceErrors.js";

/**
 * The default range: 65,536 uids from 2,000,000,000. Above every range the usual tools hand out
 * (people from 1000, systemd's dynamic users to 65519, rootless containers' /etc/subuid ranges
 * from 100000 up to useradd's 600100000, systemd-nspawn's containers from 524288 to 1879048191),
 * below systemd's "foreign" range (2147352576) and 2^31, past which some tools read a uid as
 * negative.
 */
export const DEFAULT_BROWSER_UIDS = { first: 2_000_000_000, last: 2_000_065_535 } as const;

export type BrowserUsersSetting =
  | { kind: "auto" }
  | { kind: "off" }
  | { kind: "range"; first: number; last: number };

const VARIABLE = "WAYFARER_BROWSER_USERS";
const LOWEST = 1_000; // below: the system's own users
const HIGHEST = 2 ** 31 - 2; // Node spawns only int32 uids; 2^31 - 1 is -1 to some tools
const SPECIAL = [65_534, 65_535]; // nobody, and the 16-bit (uid_t) -1

/** WAYFARER_BROWSER_USERS: "auto" (the default), "off", or a uid range "FIRST-LAST". */
export const BrowserUsersSettingSchema = z
  .string()
  .trim()
  .default("auto")
  .transform((value, ctx): BrowserUsersSetting => {
    if (value === "auto" || value === "off") return { kind: value };
    const match = /^(\d{1,10})-(\d{1,10})$/.exec(value);
    const first = Number(match?.[1]);
    const last = Number(match?.[2]);
    const problem = !match
      ? `expected auto, off, or a range of uids FIRST-LAST (e.g. ${DEFAULT_BROWSER_UIDS.first}-${DEFAULT_BROWSER_UIDS.last}), got "${value}"`
      : first > last
        ? `expected FIRST-LAST with FIRST ≤ LAST, got ${value}`
        : first < LOWEST
          ? `expected uids from ${LOWEST} (below are the system's own users), got ${value}`
          : last > HIGHEST
            ? `expected uids up to ${HIGHEST}, got ${value}`
            : SPECIAL.some((id) => id >= first && id <= last)
              ? `expected a range without 65534 (nobody) and 65535, got ${value}`
              : undefined;
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }
    return { kind: "range", first, last };
  });

/** Hands each session's browser its user, and takes it back when the session has ended. */
export class BrowserUsers {
  /** Decided once, at start-up: whom the browsers run as, with or without Chromium's sandbox. */
  readonly plan: BrowserUsersPlan;
  private readonly taken = new Map<string, number>();
  /** Where the next search starts: a uid given back is the last to be handed out again. */
  private cursor: number;

  constructor(
    setting: BrowserUsersSetting,
    private readonly host: UsersHost = thisHost(),
  ) {
    this.plan = decide(setting, host);
    // Two services on one host (shared mode) start their searches far apart; the check of live
    // processes' uids in take() catches what this does not.
    this.cursor =
      this.plan.kind === "per session"
        ? Math.floor(Math.random() * (this.plan.last - this.plan.first + 1))
        : 0;
  }

  /**
   * The user a new session's browser runs as: a uid no live session and no live process has;
   * undefined: the service's own user. Throws ServiceFull (503) when every uid is in use.
   */
  take(sessionId: string): RunAs | undefined {
    const { plan } = this;
    if (plan.kind !== "per session") return undefined;
    let uid = this.taken.get(sessionId);
    if (uid === undefined) {
      uid = this.free(plan.first, plan.last);
      this.taken.set(sessionId, uid);
    }
    return { uid, gid: uid, sandbox: plan.sandbox.works };
  }

  /** Uids not held by a session (/readyz); undefined: every browser runs as the service's user. */
  get left(): number | undefined {
    const { plan } = this;
    return plan.kind === "per session" ? plan.last - plan.first + 1 - this.taken.size : undefined;
  }

  /** The session's browser has ended and its folder is gone: its uid may be handed out again. */
  give(sessionId: string): void {
    this.taken.delete(sessionId);
  }

  private free(first: number, last: number): number {
    const size = last - first + 1;
    const ours = new Set(this.taken.values());
    let busy: ReadonlySet<number> | undefined;
    for (let i = 0; i < size; i++) {
      const uid = first + ((this.cursor + i) % size);
      if (ours.has(uid)) continue;
      busy ??= this.host.busyUids();
      if (busy.has(uid)) continue;
      this.cursor = (uid - first + 1) % size;
      return uid;
    }
    throw new ServiceFull(
      `No browser user is free: each of the ${size} uids of ${VARIABLE} (${first}-${last}) is in use by a session or a process; end a session or widen the range.`,
    );
  }
}

/** Whom the browsers run as on this host: a user each where we can, else the service's own, and why. */
function decide(setting: BrowserUsersSetting, host: UsersHost): BrowserUsersPlan {
  const own = (because: string): BrowserUsersPlan => ({
    kind: "service's user",
    uid: host.uid,
    sandbox: host.sandboxFor(undefined),
    because,
  });
  if (setting.kind === "off") return own(`${VARIABLE}=off`);
  const explicit = setting.kind === "range";
  if (host.platform !== "linux") {
    if (explicit) refuse(`a range of uids needs Linux; this is ${host.platform}`);
    return own(`no user per session on ${host.platform}`);
  }
  if (host.uid !== 0) {
    if (explicit)
      refuse(`a range of uids needs the service to run as root; it runs as uid ${host.uid}`);
    return own("the service does not run as root");
  }
  const { first, last } = explicit ? setting : DEFAULT_BROWSER_UIDS;
  const problem = host.unusable(first, last);
  if (problem) {
    if (explicit) refuse(problem);
    return own(`${problem}; set ${VARIABLE} to a range that can be used`);
  }
  return { kind: "per session", first, last, sandbox: host.sandboxFor(first) };
}

function refuse(message: string): never {
  throw new ServiceValidationError("the service's environment", [{ path: [VARIABLE], message }]);
}
