/**
 * What the dashboard shows of a session, read from it when a viewer asks: its status, the page
 * it is on, the operations so far with timings and tokens, the log lines after the viewer's
 * last, and a picture of the page (painted over where a caller's typed value shows).
 */
import type { Session } from "./session.js";

export interface SessionView {
  id: string;
  createdAt: number;
  status: "RUNNING";
  /** The operation under way, if any. */
  current: { method: string; since: number } | null;
  url: string;
  title: string;
  /** How many operations ran; the latest SHOWN_OPERATIONS of them follow. */
  operationCount: number;
  operations: {
    method: string;
    startedAt: number;
    durationMs: number;
    ok: boolean;
    inputTokens: number;
    outputTokens: number;
  }[];
  /** Lines numbered after `after`; `next` is what to ask after next time. */
  log: { lines: Session["lines"]; next: number };
}

const SHOWN_OPERATIONS = 100;
/** How old a picture may be before a viewer's request takes a new one. */
const PICTURE_MAX_AGE_MS = 500;
const PICTURE_TIMEOUT_MS = 2_000;

export async function viewOf(session: Session, after: number): Promise<SessionView> {
  const page = session.activePage();
  const title = page ? await page.title({ timeout: 1_000 }).catch(() => "") : "";
  const lines = session.lines.filter((l) => l.seq > after);
  return {
    id: session.id,
    createdAt: session.createdAt,
    status: "RUNNING",
    current: session.current ?? null,
    url: page?.url() ?? "",
    title,
    operationCount: session.operations.length,
    operations: session.operations.slice(-SHOWN_OPERATIONS).map((o) => ({
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
          maskValues: [...session.typedValues],
        })
        .catch(() => undefined)
    : Promise.resolve(undefined);
  pictures.set(session, { at: Date.now(), image });
  return image;
}
