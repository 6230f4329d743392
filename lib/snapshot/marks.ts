/**
 * Elements the caller named by selector (a scope, elements to leave out) are resolved by
 * Playwright in the page's main world; the walk runs in our isolated world. An element crosses
 * over by its backend node id, and is marked in the stash of the capture there.
 */
import type { ElementHandle, Frame } from "playwright-core";
import { disposeAll } from "../browser/elementResolver.js";
import { frameContext, isolatedWorld, newObjectGroup } from "../browser/frameSessions.js";
import { inPage } from "../browser/inPage.js";
import type { Capture, FrameRef } from "./captureFrames.js";
import { elementPath } from "./elementPath.js";

/** Marks `handles` (all in `frame`) in the capture's stash; returns that frame. */
export async function markElements(
  capture: Capture,
  frame: Frame,
  handles: ElementHandle[],
  as: "scope" | "ignore",
): Promise<FrameRef | undefined> {
  if (handles.length === 0) return undefined;
  const temp = `${capture.key}_${as}`;
  await Promise.all(handles.map((h, i) => h.evaluate(STASH_IN_MAIN_WORLD, { temp, i })));
  try {
    const found = await frameContext(capture.page, frame, `globalThis[${JSON.stringify(temp)}]`);
    if (!found) return undefined;
    const { owner, contextId, frameId } = found;
    const { session } = owner;
    const group = newObjectGroup();
    try {
      const world = await isolatedWorld(owner, frameId);
      capture.touched.push({ owner, world });
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
            const { node } = await session.send("DOM.describeNode", {
              objectId: p.value!.objectId!,
            });
            const { object } = await session.send("DOM.resolveNode", {
              backendNodeId: node.backendNodeId,
              executionContextId: world,
              objectGroup: group,
            });
            return { objectId: object.objectId! };
          }),
      );
      await session.send("Runtime.callFunctionOn", {
        functionDeclaration: `function (key, as, ...elements) {
          const stash = (globalThis[key] ??= { candidates: [], frames: [] });
          if (as === "scope") stash.scope = elements[0];
          else { stash.ignore ??= new Set(); for (const el of elements) stash.ignore.add(el); }
        }`,
        executionContextId: world,
        arguments: [{ value: capture.key }, { value: as }, ...inWorld],
      });
      return { owner, frameId };
    } finally {
      session.send("Runtime.releaseObjectGroup", { objectGroup: group }).catch(() => {});
    }
  } finally {
    await frame.evaluate(REMOVE_FROM_MAIN_WORLD, temp).catch(() => {});
  }
}

const ELEMENT_PATH = inPage(elementPath);

const STASH_IN_MAIN_WORLD = inPage((el: Element, { temp, i }: { temp: string; i: number }) => {
  const g = globalThis as unknown as Record<string, Element[]>;
  // Non-enumerable and removed at once: page scripts listing globals do not see it.
  if (!g[temp]) {
    Object.defineProperty(g, temp, { value: [], configurable: true, enumerable: false });
  }
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
