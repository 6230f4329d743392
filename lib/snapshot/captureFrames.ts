/**
 * Captures a frame and, through its iframe lines, every frame below it. The walk runs over CDP
 * in Wayfarer's isolated world of each frame's document; a child frame is found from its iframe
 * element (DOM.describeNode gives its frame id), in the same target or, out of process, in its
 * own. Nothing here remembers a frame between captures, so a tab that navigated a hundred
 * times costs what a fresh one does.
 */
import type { ElementHandle, Frame, Page } from "playwright-core";
import { WATCH_DOM_SOURCE } from "../browser/domActivity.js";
import { disposeAll } from "../browser/elementResolver.js";
import {
  type FrameSession,
  frameContext,
  isolatedWorld,
  newObjectGroup,
  ownSession,
  sessionOfFrame,
} from "../browser/frameSessions.js";
import { inPage } from "../browser/inPage.js";
import { revealClosedRoots } from "./closedRoots.js";
import { elementPath } from "./elementPath.js";
import { type FrameLines, serializeFrame } from "./serializeFrame.js";
import { PageScriptError } from "./snapshotErrors.js";

/** Closed roots appearing only once others are open are found one level per round. */
const MAX_SHADOW_ROUNDS = 5;

export interface CapturedFrame {
  lines: FrameLines;
  /** Index of an iframe line's element in the frame's stash → that frame's capture. */
  children: Map<number, CapturedFrame>;
}

/** Where a capture starts: a target's session and a frame it renders. */
export interface FrameRef {
  owner: FrameSession;
  frameId: string;
}

/** Sent as source: a local `__name`, for bundlers that keep function names (see inPage.ts). */
const SERIALIZE = `function (key) {
  const __name = (f) => f;
  return (${serializeFrame.toString()})(key, ${WATCH_DOM_SOURCE});
}`;

export async function mainFrameRef(page: Page): Promise<FrameRef> {
  const owner = await ownSession(page, page.mainFrame());
  if (!owner) throw new Error("the page has no CDP session");
  return { owner, frameId: await owner.rootFrameId() };
}

/** How long the main frame's elements have been quiet, asked on its own (scoped captures). */
export async function mainQuietFor(main: FrameRef): Promise<number> {
  const world = await isolatedWorld(main.owner, main.frameId);
  const { result } = await main.owner.session.send("Runtime.callFunctionOn", {
    functionDeclaration: `function () {
      const watched = "__wayfarerDom" in globalThis;
      const watcher = (${WATCH_DOM_SOURCE})();
      return watched ? watcher.quietFor() : 0;
    }`,
    executionContextId: world,
    returnByValue: true,
  });
  return result.value as number;
}

export async function captureFrame(page: Page, ref: FrameRef, key: string): Promise<CapturedFrame> {
  const { owner, frameId } = ref;
  const { session } = owner;
  const world = await isolatedWorld(owner, frameId);
  try {
    let lines = await serialize(owner, world, key);
    for (let round = 0; round < MAX_SHADOW_ROUNDS && lines.candidates > 0; round++) {
      if ((await revealClosedRoots(owner, world, key)) === 0) break;
      lines = await serialize(owner, world, key);
    }
    const children = new Map<number, CapturedFrame>();
    if (lines.frame.some((f) => f >= 0)) {
      const childIds = await contentFrameIds(owner, world, key);
      await Promise.all(
        childIds.map(async (childId, index) => {
          if (!childId) return;
          const captured = await captureChild(page, owner, childId, key);
          if (captured) children.set(index, captured);
        }),
      );
    }
    return { lines, children };
  } finally {
    // Not awaited: nothing later reads the stash, and commands on a session keep their order.
    session
      .send("Runtime.evaluate", {
        expression: `delete globalThis[${JSON.stringify(key)}]`,
        contextId: world,
      })
      .catch(() => {});
  }
}

async function serialize(owner: FrameSession, world: number, key: string): Promise<FrameLines> {
  const { result, exceptionDetails } = await owner.session.send("Runtime.callFunctionOn", {
    functionDeclaration: SERIALIZE,
    executionContextId: world,
    arguments: [{ value: key }],
    returnByValue: true,
  });
  if (exceptionDetails) {
    throw new PageScriptError(exceptionDetails.exception?.description ?? exceptionDetails.text);
  }
  return result.value as FrameLines;
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
 * gone or between documents has no lines: its iframe shows empty, which is not an error.
 */
async function captureChild(
  page: Page,
  parent: FrameSession,
  frameId: string,
  key: string,
): Promise<CapturedFrame | undefined> {
  // Out-of-process frames are known by their sessions (cached); any other is the parent's.
  const owner = (await sessionOfFrame(page, frameId)) ?? parent;
  try {
    return await captureFrame(page, { owner, frameId }, key);
  } catch (error) {
    if (isContextLoss(error)) return undefined;
    throw error;
  }
}

/**
 * Marks elements Playwright resolved (main world) in our isolated world: as the scope, or as
 * left out. Returns the frame they are in. The element crosses worlds by its backend node id.
 */
export async function markElements(
  page: Page,
  frame: Frame,
  handles: ElementHandle[],
  key: string,
  as: "scope" | "ignore",
): Promise<FrameRef | undefined> {
  if (handles.length === 0) return undefined;
  const temp = `${key}_${as}`;
  await Promise.all(handles.map((h, i) => h.evaluate(STASH_IN_MAIN_WORLD, { temp, i })));
  try {
    const found = await frameContext(page, frame, `globalThis[${JSON.stringify(temp)}]`);
    if (!found) return undefined;
    const { owner, contextId, frameId } = found;
    const { session } = owner;
    const group = newObjectGroup();
    const world = await isolatedWorld(owner, frameId);
    const { result } = await session.send("Runtime.evaluate", {
      expression: `globalThis[${JSON.stringify(temp)}]`,
      contextId,
      objectGroup: group,
    });
    const { result: items } = await session.send("Runtime.getProperties", {
      objectId: result.objectId!,
      ownProperties: true,
    });
    const inWorld = await Promise.all(
      items
        .filter((p) => p.value?.subtype === "node")
        .map(async (p) => {
          const { node } = await session.send("DOM.describeNode", { objectId: p.value!.objectId! });
          const { object } = await session.send("DOM.resolveNode", {
            backendNodeId: node.backendNodeId,
            executionContextId: world,
            objectGroup: group,
          });
          return { objectId: object.objectId! };
        }),
    );
    const path = as === "scope" ? await handles[0]!.evaluate(ELEMENT_PATH) : "";
    await session.send("Runtime.callFunctionOn", {
      functionDeclaration: `function (key, as, path, ...elements) {
        const stash = (globalThis[key] ??= { candidates: [], frames: [] });
        if (as === "scope") { stash.scope = elements[0]; stash.scopePath = path; }
        else { stash.ignore ??= new Set(); for (const el of elements) stash.ignore.add(el); }
      }`,
      executionContextId: world,
      arguments: [{ value: key }, { value: as }, { value: path }, ...inWorld],
    });
    session.send("Runtime.releaseObjectGroup", { objectGroup: group }).catch(() => {});
    return { owner, frameId };
  } finally {
    await frame.evaluate(REMOVE_FROM_MAIN_WORLD, temp).catch(() => {});
  }
}

const ELEMENT_PATH = inPage(elementPath);

const STASH_IN_MAIN_WORLD = inPage((el: Element, { temp, i }: { temp: string; i: number }) => {
  const g = globalThis as unknown as Record<string, Element[]>;
  // Non-enumerable and removed at once: page scripts listing globals do not see it.
  if (!g[temp])
    Object.defineProperty(g, temp, { value: [], configurable: true, enumerable: false });
  g[temp]![i] = el;
});

const REMOVE_FROM_MAIN_WORLD = inPage((temp: string) => {
  delete (globalThis as unknown as Record<string, unknown>)[temp];
});

/** The selector of the iframe elements above `frame` (empty for the main frame). */
export async function framePrefix(frame: Frame): Promise<string> {
  let prefix = "";
  for (let f = frame; f.parentFrame(); f = f.parentFrame()!) {
    const owner = await f.frameElement();
    try {
      prefix = (await owner.evaluate(ELEMENT_PATH)) + prefix;
    } finally {
      await disposeAll([owner]);
    }
  }
  return prefix;
}

export function isContextLoss(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Execution context was destroyed|Cannot find context|No frame (for given id|with given id)|Frame was detached|Target closed|Session closed|has been closed|navigat/i.test(
    message,
  );
}
