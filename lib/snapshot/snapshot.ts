/**
 * The page as the model sees it: settle → resolve scope and ignored elements → capture every
 * frame → one outline with its id maps → chunks. Callers give the deadline; every wait here
 * is bounded by it.
 */
import { randomUUID } from "node:crypto";
import type { ElementHandle, Frame, Page } from "playwright-core";
import { failOnCrash, hasCrashed } from "../browser/crashes.js";
import {
  AmbiguousSelectorError,
  disposeAll,
  type Resolution,
  resolveSelector,
} from "../browser/elementResolver.js";
import { parseSelector } from "../browser/selector.js";
import { ServiceDomProcessError, ServiceError, XPathResolutionError } from "../errors.js";
import type { Logger } from "../log.js";
import { type Deadline, sleep } from "../timeout.js";
import {
  type Capture,
  captureFrame,
  cleanUp,
  type FrameRef,
  isContextLoss,
  mainDocument,
  mainFrameRef,
} from "./captureFrames.js";
import { type Chunk, chunkOutline, DEFAULT_TOKEN_BUDGET, startChunk } from "./chunks.js";
import { framePrefix, markElements } from "./marks.js";
import { assembleOutline, type Outline } from "./outline.js";
import { type DocumentMark, rememberMarks } from "./outlineMarks.js";
import type { Mask } from "./quoting.js";
import { actionSettled, DOM_GRACE_MS, domWait, networkIdle } from "./settle.js";
import { DocumentChangedError, missingScope, toSnapshotError } from "./snapshotErrors.js";

export interface SnapshotRequest {
  /** Only this element's subtree (XPath, `xpath=`, or CSS with `>>` frame hops). */
  selector?: string;
  /** Every match of each, with its descendants, is left out. */
  ignoreSelectors?: string[];
  /** Longest wait for a quiet DOM and network before capturing. */
  domSettleTimeout: number;
  /** Token budget of one chunk. */
  tokenBudget?: number;
  /** Hides typed values in the outline, before its quoting and its chunks. */
  mask?: Mask;
  /** Records each id's element identity (`identities`): what acting by id checks. */
  identities?: boolean;
  /**
   * Marks each document walked as read, so that `unchangedSince` can say later whether the page
   * is still as this outline shows it (a read of another part asks). Off for every other capture:
   * the mark starts an observer of every change in the document.
   */
  marked?: boolean;
}

export interface Snapshot extends Outline {
  /** The outline cut into viewport-ordered pieces within the token budget. */
  chunks: Chunk[];
  /** Index of the chunk holding the top of the viewport: where a walk starts. */
  startChunk: number;
}

/** A capture that meets a document being replaced starts over, this many times at most. */
const ATTEMPTS = 4;

export async function takeSnapshot(
  page: Page,
  request: SnapshotRequest,
  deadline: Deadline,
  logger: Logger,
): Promise<Snapshot> {
  const settleEndsAt = Date.now() + Math.min(request.domSettleTimeout, deadline.remaining());
  deadline.step("settle");
  const waitedFor: string[] = [];
  if (await actionSettled(page, settleEndsAt - Date.now()))
    waitedFor.push("a frame after an action");
  if (await networkIdle(page, settleEndsAt - Date.now(), logger)) waitedFor.push("the network");
  const graceEndsAt = Math.min(settleEndsAt, Date.now() + DOM_GRACE_MS);
  deadline.step("capture");
  for (;;) {
    const { outline, quietFor, marks } = await captureWithRetries(page, request, deadline, logger);
    const wait = domWait(quietFor, graceEndsAt);
    if (wait > 0) waitedFor.push("the DOM");
    if (wait === 0) {
      // What settling waited for, in order ("the DOM" once per capture taken again).
      logger.debug("snapshot", "captured", { waitedFor });
      const budget = request.tokenBudget ?? DEFAULT_TOKEN_BUDGET;
      const chunks = chunkOutline(outline.lines, budget, outline.titleLine);
      const snapshot = { ...outline, chunks, startChunk: startChunk(chunks, outline.viewport) };
      if (marks) rememberMarks(snapshot, marks);
      return snapshot;
    }
    // Taken while the DOM was still changing: once more, when it has been quiet a while.
    await sleep(wait, deadline.signal);
    if (deadline.signal.aborted) throw deadline.signal.reason;
  }
}

function crashError(): ServiceDomProcessError {
  return new ServiceDomProcessError(
    "the page's renderer crashed (out of memory, or a page too deep or large for it)",
  );
}

/** One capture; a document replaced while it runs (a navigation) means starting over. */
async function captureWithRetries(
  page: Page,
  request: SnapshotRequest,
  deadline: Deadline,
  logger: Logger,
): Promise<Awaited<ReturnType<typeof captureOnce>>> {
  for (let attempt = 1; ; attempt++) {
    if (page.isClosed()) {
      throw new ServiceError("The page was closed; there is nothing to capture.");
    }
    if (hasCrashed(page)) throw crashError();
    try {
      // A crashed renderer never answers: fail then, not at the deadline.
      return await failOnCrash(page, captureOnce(page, request, deadline, logger), crashError);
    } catch (error) {
      if (page.isClosed()) {
        throw new ServiceError("The page was closed during the capture.", { cause: error });
      }
      if (error instanceof ServiceError || attempt >= ATTEMPTS || !isContextLoss(error)) {
        throw toSnapshotError(error);
      }
      logger.debug("snapshot", "the document changed during the capture; starting over", {
        attempt,
      });
      deadline.step(`capture (attempt ${attempt + 1})`);
      await sleep(50 * attempt, deadline.signal);
      if (deadline.signal.aborted) throw deadline.signal.reason;
    }
  }
}

async function captureOnce(
  page: Page,
  request: SnapshotRequest,
  deadline: Deadline,
  logger: Logger,
): Promise<{ outline: Outline; quietFor: number; marks: DocumentMark[] | undefined }> {
  const owned: ElementHandle[] = [];
  const capture: Capture = {
    page,
    key: `__wayfarer_${randomUUID().replaceAll("-", "")}`,
    // A frame stuck in a loop must not take the whole call with it.
    childTimeoutMs: Math.max(1_000, deadline.remaining() / 2),
    identities: request.identities === true,
    touched: [],
    marks: request.marked ? [] : undefined,
    logger,
  };
  try {
    let start: FrameRef | undefined;
    let prefix = "";
    if (request.selector) {
      const { frame, handle } = await resolveScope(page, request.selector);
      owned.push(handle);
      start = await markElements(capture, frame, [handle], "scope");
      if (!start) throw new DocumentChangedError("the scope element's frame went away");
      capture.scopeFrameId = start.frameId;
      prefix = await framePrefix(frame);
    }
    const ignored = new Map<Frame, ElementHandle[]>();
    for (const selector of request.ignoreSelectors ?? []) {
      const { frame, handles } = await resolveAll(page, selector);
      owned.push(...handles);
      ignored.set(frame, [...(ignored.get(frame) ?? []), ...handles]);
    }
    for (const [frame, handles] of ignored) {
      if (handles.length === 0) continue;
      // Leaving something in would show what the caller asked to leave out: start over.
      const marked = await markElements(capture, frame, handles, "ignore");
      if (!marked) throw new DocumentChangedError("a frame went away while marking");
    }
    const main = await mainFrameRef(page);
    const captured = await captureFrame(capture, start ?? main);
    // The page's own quiet time and title, whichever frame the capture started in.
    const { quietFor, title } = start ? await mainDocument(page, main) : captured.lines;
    const outline = assembleOutline(captured, title, prefix, request.mask);
    return { outline, quietFor, marks: capture.marks };
  } finally {
    cleanUp(capture);
    await disposeAll(owned);
  }
}

async function resolveScope(
  page: Page,
  selector: string,
): Promise<{ frame: Frame; handle: ElementHandle }> {
  const resolution = await resolveAll(page, selector);
  const [first, ...rest] = resolution.handles;
  if (!first) throw missingScope(selector, resolution.note);
  if (rest.length) {
    await disposeAll(resolution.handles);
    throw new XPathResolutionError(
      selector,
      `it matches ${resolution.handles.length} elements; a scope is one element`,
    );
  }
  return { frame: resolution.frame, handle: first };
}

/** Every element `selector` matches, with selector mistakes raised as the reference's errors. */
async function resolveAll(page: Page, selector: string): Promise<Resolution> {
  try {
    return await resolveSelector(page, parseSelector(selector));
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof AmbiguousSelectorError) {
      throw new XPathResolutionError(selector, message, { cause: error });
    }
    if (/not a valid XPath|invalid selector|Unexpected token|while parsing/i.test(message)) {
      throw new XPathResolutionError(selector, "it is not a valid selector", { cause: error });
    }
    throw error;
  }
}
