/**
 * Captures a frame and, through its iframe lines, every frame below it. Frames come from
 * Playwright's frame tree, which follows navigations, detaches and out-of-process iframes for
 * us: nothing here remembers a frame between captures, so a tab that navigated a hundred times
 * costs what a fresh one does.
 */
import type { ElementHandle, Frame, Page } from "playwright-core";
import { disposeAll } from "../browser/elementResolver.js";
import { inPage } from "../browser/inPage.js";
import { revealClosedRoots } from "./closedRoots.js";
import { elementPath } from "./elementPath.js";
import { type FrameLines, type FrameStash, serializeFrame } from "./serializeFrame.js";

/** Closed roots nested in closed roots are found one level per round. */
const MAX_SHADOW_ROUNDS = 5;

export interface CapturedFrame {
  lines: FrameLines;
  /** Index of an iframe line's element in the frame's stash → that frame's capture. */
  children: Map<number, CapturedFrame>;
}

export interface FrameMarks {
  /** The element whose subtree alone is outlined, in its frame. */
  scope?: ElementHandle;
  /** Elements left out with their subtrees, by frame. */
  ignore: Map<Frame, ElementHandle[]>;
}

const SERIALIZE = inPage(serializeFrame);

const REMOVE = inPage((key: string) => {
  delete (globalThis as unknown as Record<string, unknown>)[key];
});

const MARK_SCOPE = inPage((el: Element, { key, path }: { key: string; path: string }) => {
  const g = globalThis as unknown as Record<string, FrameStash>;
  // Non-enumerable and removed after the capture: page scripts listing globals do not see it.
  if (!g[key]) Object.defineProperty(g, key, { value: {}, configurable: true, enumerable: false });
  const stash = g[key]!;
  stash.scope = el;
  stash.scopePath = path;
});

const MARK_IGNORED = inPage((el: Element, key: string) => {
  const g = globalThis as unknown as Record<string, FrameStash>;
  if (!g[key]) Object.defineProperty(g, key, { value: {}, configurable: true, enumerable: false });
  const stash = g[key]!;
  stash.ignore ??= new Set();
  stash.ignore.add(el);
});

const ELEMENT_PATH = inPage(elementPath);

const INDEX_OF_FRAME = inPage((el: Element, key: string): number => {
  const stash = (globalThis as unknown as Record<string, FrameStash | undefined>)[key];
  return stash ? stash.frames.indexOf(el) : -1;
});

export async function captureFrame(
  page: Page,
  frame: Frame,
  key: string,
  marks: FrameMarks,
): Promise<CapturedFrame> {
  try {
    if (marks.scope) {
      const path = await marks.scope.evaluate(ELEMENT_PATH);
      await marks.scope.evaluate(MARK_SCOPE, { key, path });
    }
    for (const el of marks.ignore.get(frame) ?? []) await el.evaluate(MARK_IGNORED, key);
    let lines = await frame.evaluate(SERIALIZE, key);
    for (let round = 0; round < MAX_SHADOW_ROUNDS && lines.candidates > 0; round++) {
      if ((await revealClosedRoots(page, frame, key)) === 0) break;
      lines = await frame.evaluate(SERIALIZE, key);
    }
    const children = new Map<number, CapturedFrame>();
    if (lines.frame.some((f) => f >= 0)) {
      const childMarks: FrameMarks = { ignore: marks.ignore };
      // Where a frame goes and what it holds are asked at once: one wait instead of two.
      // Each frame its own key: frames sharing a process are told apart by it over CDP.
      await Promise.all(
        frame.childFrames().map(async (child, i) => {
          const [index, captured] = await Promise.all([
            ownerIndex(child, key),
            captureChild(page, child, `${key}_${i}`, childMarks),
          ]);
          if (index >= 0) children.set(index, captured);
        }),
      );
    }
    return { lines, children };
  } finally {
    // Not awaited: nothing later in this capture reads the stash, and the next uses a new key.
    frame.evaluate(REMOVE, key).catch(() => {});
  }
}

/** A child frame that is gone or between documents shows as an empty iframe, not an error. */
async function captureChild(
  page: Page,
  child: Frame,
  key: string,
  marks: FrameMarks,
): Promise<CapturedFrame> {
  try {
    return await captureFrame(page, child, key, marks);
  } catch (error) {
    if (child.isDetached() || isContextLoss(error)) return { lines: EMPTY, children: new Map() };
    throw error;
  }
}

async function ownerIndex(child: Frame, key: string): Promise<number> {
  let owner: ElementHandle | undefined;
  try {
    owner = await child.frameElement();
    return await owner.evaluate(INDEX_OF_FRAME, key);
  } catch {
    // Detached meanwhile: it has no place in the outline.
    return -1;
  } finally {
    if (owner) await disposeAll([owner]);
  }
}

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
  return /Execution context was destroyed|Frame was detached|Target closed|Cannot find context|navigat/i.test(
    message,
  );
}

const EMPTY: FrameLines = {
  text: [],
  depth: [],
  interactive: [],
  path: [],
  url: [],
  top: [],
  frame: [],
  candidates: 0,
  viewportHeight: 0,
  scrollY: 0,
};
