/**
 * What the dashboard shows of a session, read from it when a viewer asks: its status, the page
 * it is on, the operations so far with timings, tokens, what each was asked and answered (an
 * agent's steps), the log lines after the viewer's last, and a picture of the page (painted
 * over where a caller's typed value shows).
 */
import type { OperationDetail, StepView } from "./dashboard/liveOperation.js";
import { dashboardLink } from "./links.js";
import type { Session } from "./session.js";

export interface SessionView {
  id: string;
  createdAt: number;
  status: "RUNNING";
  /** The operation under way, if any: what it was asked, the model call in flight, its steps. */
  current: {
    method: string;
    since: number;
    asked?: string;
    asking?: { model: string; since: number };
    steps: StepView[];
  } | null;
  url: string;
  title: string;
  /** How many operations ran; the latest SHOWN_OPERATIONS of them the viewer has not seen follow. */
  operationCount: number;
  operations: ({
    /** Its place among the session's operations, from 0. */
    index: number;
    method: string;
    startedAt: number;
    durationMs: number;
    ok: boolean;
    inputTokens: number;
    outputTokens: number;
  } & OperationDetail)[];
  /** Lines numbered after `after`; `next` is what to ask after next time. */
  log: { lines: Session["lines"]; next: number };
}

const SHOWN_OPERATIONS = 100;
/** How old a picture may be before a viewer's request takes a new one. */
const PICTURE_MAX_AGE_MS = 500;
const PICTURE_TIMEOUT_MS = 2_000;

/** `after`: the last log line the viewer has; `seen`: how many operations it has. */
export async function viewOf(session: Session, after: number, seen = 0): Promise<SessionView> {
  const page = session.activePage();
  const title = page ? await page.title({ timeout: 1_000 }).catch(() => "") : "";
  const lines = session.lines.filter((l) => l.seq > after);
  const count = session.operations.length;
  const from = Math.min(count, Math.max(seen, count - SHOWN_OPERATIONS));
  const current = session.current;
  return {
    id: session.id,
    createdAt: session.createdAt,
    status: "RUNNING",
    current: current
      ? {
          method: current.method,
          since: current.since,
          ...(current.asked !== undefined ? { asked: current.asked } : {}),
          ...(current.asking ? { asking: current.asking } : {}),
          steps: current.stepsSoFar,
        }
      : null,
    // A submitted form's address may carry a typed value.
    url: session.shown.text(page?.url() ?? ""),
    title: session.shown.text(title),
    operationCount: count,
    operations: session.operations.slice(from).map((o, i) => ({
      index: from + i,
      ...o.detail,
      method: o.method,
      startedAt: o.startedAt,
      durationMs: o.durationMs,
      ok: o.ok,
      inputTokens: o.tokenUsage.inputTokens,
      outputTokens: o.tokenUsage.outputTokens,
    })),
    log: { lines, next: lines.at(-1)?.seq ?? after },
  };
}

/** One row of the project view: a live session, and the link to its own dashboard. */
export interface SessionRow {
  id: string;
  createdAt: number;
  lastUsed: number;
  /** The operation under way, if any. */
  running: string | null;
  url: string;
  operationCount: number;
  /** Its dashboard, on this origin, with its own read-only token in the fragment. */
  link: string;
}

/** The project view's rows: the sessions given, newest first. */
export function listOf(sessions: Session[]): SessionRow[] {
  return sessions
    .map((session) => ({
      id: session.id,
      createdAt: session.createdAt,
      lastUsed: session.lastUsed,
      running: session.current?.method ?? null,
      url: session.shown.text(session.activePage()?.url() ?? ""),
      operationCount: session.operations.length,
      link: dashboardLink("", session),
    }))
    .sort((a, b) => b.createdAt - a.createdAt);
}

/** One picture at a time per session, shared by every viewer asking within its age. */
const pictures = new WeakMap<Session, { at: number; image: Promise<Buffer | undefined> }>();

/** A JPEG of the session's active page, or undefined when it cannot be had quickly. */
export function pictureOf(session: Session): Promise<Buffer | undefined> {
  const kept = pictures.get(session);
  if (kept && Date.now() - kept.at < PICTURE_MAX_AGE_MS) return kept.image;
  const page = session.activePage();
  const image = page
    ? page
        .screenshot({
          type: "jpeg",
          quality: 60,
          timeout: PICTURE_TIMEOUT_MS,
          maskValues: session.shown.values,
        })
        .catch(() => undefined)
    : Promise.resolve(undefined);
  pictures.set(session, { at: Date.now(), image });
  return image;
}
