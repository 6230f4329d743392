/**
 * Captures a frame and, through its iframe lines, every frame below it. The walk runs over CDP
 * in Wayfarer's isolated world of each frame's document; a child frame is found from its iframe
 * element (DOM.describeNode gives its frame id), in the same target or, out of process, in its
 * own. Nothing here remembers a frame between captures, so a tab that navigated a hundred
 * times costs what a fresh one does.
 */
import type { Page } from "playwright-core";
import { actionAge } from "../browser/actionNotes.js";
import { DOM_ACTIVITY_SOURCE } from "../browser/domActivity.js";
import { identityIn } from "../browser/elementIdentity.js";
import {
  type FrameSession,
  isolatedWorld,
  newObjectGroup,
  ownSession,
  sessionOfFrame,
} from "../browser/frameSessions.js";
import type { Logger } from "../log.js";
import { forgetAsked, revealClosedRoots } from "./closedRoots.js";
import { elementPath } from "./elementPath.js";
import type { FrameLines, WalkRequest } from "./frameLines.js";
import type { DocumentMark } from "./outlineMarks.js";
import { pageSemantics } from "./pageSemantics.js";
import { serializeFrame } from "./serializeFrame.js";
import { DocumentChangedError, PageScriptError } from "./snapshotErrors.js";

/** Closed roots appearing only once others are open are found one level per round. */
const MAX_SHADOW_ROUNDS = 5;

export interface CapturedFrame {
  lines: FrameLines;
  /** Index of an iframe line's element in the frame's stash → that frame's capture. */
  children: Map<number, CapturedFrame>;
}

/** A target's session and a frame it renders. */
export interface FrameRef {
  owner: FrameSession;
  frameId: string;
}

/** One capture across frames. */
export interface Capture {
  page: Page;
  /** Names this capture's stash in each frame's isolated world. */
  key: string;
  /** The frame whose walk must find a scope marked in its stash. */
  scopeFrameId?: string;
  /** Longest a child frame may take before it is shown empty (a frame busy in a loop). */
  childTimeoutMs: number;
  /** Record what each element with an id is (its role, name and context). */
  identities: boolean;
  /** Worlds holding this capture's stash, cleaned afterwards. */
  touched: { owner: FrameSession; world: number }[];
  /** Asked for (`marked`): every document walked, with the change mark its walk ended on. */
  marks: DocumentMark[] | undefined;
  logger: Logger;
}

/**
 * The walk, sent as source once per document: it installs itself in the world (with what it
 * needs, and a local `__name`: see inPage.ts) and runs. Later captures of the document call it
 * by name (WALK), without sending its ~18 KB again for the browser and the page to parse.
 */
const INSTALL_AND_WALK = `function (request) {
  const __name = (f) => f;
  const walk = (request) => (${serializeFrame.toString()})(
    request,
    (${pageSemantics.toString()})(),
    ${DOM_ACTIVITY_SOURCE},
    (${elementPath.toString()}),
    (${identityIn.toString()}),
  );
  Object.defineProperty(globalThis, "__wayfarerWalk", { value: walk, configurable: true });
  return walk(request);
}`;
/** The installed walk; null where it is not (a document the walk has not run in). */
const WALK = `function (request) {
  const walk = globalThis.__wayfarerWalk;
  return walk ? walk(request) : null;
}`;
/** Per session, the worlds (by context id) the walk was installed in. */
const walkers = new WeakMap<FrameSession, Set<number>>();

export async function mainFrameRef(page: Page): Promise<FrameRef> {
  const owner = await ownSession(page, page.mainFrame());
  if (!owner) throw new Error("the page has no CDP session");
  return { owner, frameId: await owner.rootFrameId() };
}

/**
 * How long the main frame's elements have been quiet, and its title, asked on their own (a
 * capture scoped to an element does not walk the main frame).
 */
export async function mainDocument(
  page: Page,
  main: FrameRef,
): Promise<{ quietFor: number; title: string }> {
  const world = await isolatedWorld(main.owner, main.frameId);
  const { result, exceptionDetails } = await main.owner.session.send("Runtime.callFunctionOn", {
    functionDeclaration: `function (actionAge) {
      const __name = (f) => f;
      const title = document.title.replace(/\\s+/g, " ").trim();
      return { quietFor: ${DOM_ACTIVITY_SOURCE}.quietFor(actionAge), title };
    }`,
    executionContextId: world,
    arguments: [{ value: actionAge(page) }],
    returnByValue: true,
  });
  if (exceptionDetails) throw new PageScriptError(exceptionDetails.text);
  const value = result.value as { quietFor?: number; title?: string } | undefined;
  return { quietFor: Number(value?.quietFor) || 0, title: String(value?.title ?? "") };
}

export async function captureFrame(capture: Capture, ref: FrameRef): Promise<CapturedFrame> {
  const { owner, frameId } = ref;
  const world = await isolatedWorld(owner, frameId);
  const touched = { owner, world };
  capture.touched.push(touched);
  // The action's age is taken as each request leaves: the page's clock need not agree with ours.
  const request = () => ({
    key: capture.key,
    expectScope: capture.scopeFrameId === frameId,
    actionAge: actionAge(capture.page),
    identities: capture.identities,
    stamp: capture.marks !== undefined,
  });
  let lines = await serialize(owner, world, request());
  const root = lines.candidates > 0 && (await owner.rootFrameId().catch(() => "")) === frameId;
  for (let round = 0; lines.candidates > 0; round++) {
    if (round === MAX_SHADOW_ROUNDS) {
      // Rounds used up with hosts still unasked: they stay candidates for the next capture.
      forgetAsked(owner, world, capture.key);
      break;
    }
    if ((await revealClosedRoots(owner, world, capture.key, { ...lines, root })) === 0) break;
    lines = await serialize(owner, world, request());
  }
  capture.marks?.push({ owner, world, stamp: lines.stamp });
  // The walk removed its stash itself: one message less for the clean-up.
  const at = capture.touched.lastIndexOf(touched);
  if (!lines.kept && at >= 0) capture.touched.splice(at, 1);
  const children = new Map<number, CapturedFrame>();
  if (lines.frame.some((f) => f >= 0)) {
    const childIds = await contentFrameIds(owner, world, capture.key);
    await Promise.all(
      childIds.map(async (childId, index) => {
        if (!childId) return;
        const captured = await captureChild(capture, owner, childId);
        if (captured) children.set(index, captured);
      }),
    );
  }
  return { lines, children };
}

/** Removes the capture's stash from every world it touched (not awaited: order is kept). */
export function cleanUp(capture: Capture): void {
  for (const { owner, world } of capture.touched) {
    owner.session
      .send("Runtime.evaluate", {
        expression: `delete globalThis[${JSON.stringify(capture.key)}]`,
        contextId: world,
      })
      .catch(() => {});
  }
}

async function serialize(
  owner: FrameSession,
  world: number,
  request: WalkRequest,
): Promise<FrameLines> {
  const walk = async (functionDeclaration: string) => {
    const { result, exceptionDetails } = await owner.session.send("Runtime.callFunctionOn", {
      functionDeclaration,
      executionContextId: world,
      arguments: [{ value: request }],
      returnByValue: true,
    });
    if (exceptionDetails) {
      throw new PageScriptError(exceptionDetails.exception?.description ?? exceptionDetails.text);
    }
    return result.value as FrameLines | null;
  };
  let installed = walkers.get(owner);
  if (!installed) {
    installed = new Set();
    walkers.set(owner, installed);
  }
  // A context id can come back for another document (a renderer swapped on navigation): a
  // world without the walk answers null, and gets it.
  let lines = installed.has(world) ? await walk(WALK) : null;
  if (lines === null) {
    lines = (await walk(INSTALL_AND_WALK)) as FrameLines;
    // Ids of gone documents are dropped now and then; a dropped live one only costs a resend.
    if (installed.size >= 256) installed.clear();
    installed.add(world);
  }
  if (lines.scopeLost) throw new DocumentChangedError("the scope's document was replaced");
  return lines;
}

/** The frame id of each iframe element of the frame's lines, in their order ("" if none). */
async function contentFrameIds(owner: FrameSession, world: number, key: string): Promise<string[]> {
  const { session } = owner;
  const group = newObjectGroup();
  try {
    const { result } = await session.send("Runtime.evaluate", {
      expression: `globalThis[${JSON.stringify(key)}].frames`,
      contextId: world,
      objectGroup: group,
    });
    if (!result.objectId) return [];
    const { result: items } = await session.send("Runtime.getProperties", {
      objectId: result.objectId,
      ownProperties: true,
    });
    const elements = items
      .filter((p) => /^\d+$/.test(p.name))
      .sort((a, b) => Number(a.name) - Number(b.name));
    return await Promise.all(
      elements.map((p) =>
        p.value?.objectId
          ? session
              .send("DOM.describeNode", { objectId: p.value.objectId })
              .then((d) => d.node.frameId ?? "")
              .catch(() => "")
          : "",
      ),
    );
  } finally {
    session.send("Runtime.releaseObjectGroup", { objectGroup: group }).catch(() => {});
  }
}

/**
 * A child frame rendered by the same target, or out of process by its own. A frame that is
 * gone, between documents, or too busy to answer in time has no lines: its iframe shows empty,
 * which is not an error.
 */
async function captureChild(
  capture: Capture,
  parent: FrameSession,
  frameId: string,
): Promise<CapturedFrame | undefined> {
  const work = (async () => {
    // Out-of-process frames are known by their sessions (cached); any other is the parent's.
    const owner = (await sessionOfFrame(capture.page, frameId)) ?? parent;
    return captureFrame(capture, { owner, frameId });
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), capture.childTimeoutMs);
  });
  try {
    const result = await Promise.race([work, late]);
    if (result === "late") {
      capture.logger.debug("snapshot", "a frame did not answer in time; it is shown empty", {
        frameId,
        timeoutMs: capture.childTimeoutMs,
      });
      return undefined;
    }
    return result;
  } catch (error) {
    if (isContextLoss(error)) return undefined;
    throw error;
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}

export function isContextLoss(error: unknown): boolean {
  if (error instanceof DocumentChangedError) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /Execution context was destroyed|Cannot find context|No frame (for given id|with given id)|Frame was detached|Target closed|Session closed|has been closed|navigat/i.test(
    message,
  );
}
