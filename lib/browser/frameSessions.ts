/**
 * CDP sessions for work that page JavaScript cannot do (closed shadow roots) or should not see
 * (the snapshot's walk runs in an isolated world of its own). A frame is rendered by its own
 * target when it is out-of-process, else by an ancestor's; one session per such target is kept
 * for the life of the target, and the execution contexts of its frames are tracked from its
 * events, so that a capture costs no attach, enable or detach. Nothing is kept per navigation:
 * contexts come and go with their documents, and a session whose target went away is dropped.
 */
import type { CDPSession, Frame, Page } from "playwright-core";
import { watchNewDocuments } from "./domActivity.js";

/** Name of the isolated world Wayfarer's page code runs in. */
export const WORLD_NAME = "wayfarer";

export interface FrameSession {
  session: CDPSession;
  /** Main-world execution context id → its frame's id. */
  mainWorlds: Map<number, string>;
  /** Frame id → execution context id of our isolated world in that frame's document. */
  worlds: Map<string, number>;
  /** Id of the frame this target renders at its root (the page's main frame, or an OOPIF). */
  rootFrameId(): Promise<string>;
}

const sessions = new WeakMap<Frame, Promise<FrameSession | undefined>>();
const watchedPages = new WeakSet<Page>();
/** Frames found to have no target of their own (rendered by an ancestor's). */
const inProcess = new WeakSet<Frame>();

let groups = 0;
/** A CDP object group of its own for one operation: operations on one target run at once. */
export const newObjectGroup = () => `wayfarer-${++groups}`;

/** The session of the target `frame` is the root of; undefined for an in-process frame. */
export function ownSession(page: Page, frame: Frame): Promise<FrameSession | undefined> {
  if (!watchedPages.has(page)) {
    watchedPages.add(page);
    // A child frame known to be in-process may move to a process of its own when it
    // navigates: ask again. A session of its own is kept (it closes by itself if its target
    // goes away); detaching it while the frame loads was seen to stall the page's load event.
    page.on("framenavigated", (f) => {
      if (f !== page.mainFrame() && inProcess.has(f)) {
        inProcess.delete(f);
        sessions.delete(f);
      }
    });
  }
  let known = sessions.get(frame);
  if (!known) {
    known = open(page, frame);
    known.then((s) => (s ? inProcess.delete(frame) : inProcess.add(frame))).catch(() => {});
    sessions.set(frame, known);
    // A failed attach is not remembered: the next call tries again.
    known.catch(() => {
      if (sessions.get(frame) === known) sessions.delete(frame);
    });
  }
  return known;
}

/**
 * Forgets what is known about `frame`'s session; the next call asks again. The session is not
 * detached: it closes by itself when its target goes away.
 */
export function forgetSession(frame: Frame): void {
  sessions.delete(frame);
  inProcess.delete(frame);
}

async function open(page: Page, frame: Frame): Promise<FrameSession | undefined> {
  let session: CDPSession;
  try {
    session = await page.context().newCDPSession(frame);
  } catch {
    // An in-process frame has no target of its own: its parent's renders it.
    return undefined;
  }
  const mainWorlds = new Map<number, string>();
  const worlds = new Map<string, number>();
  session.on("close", () => {
    sessions
      .get(frame)
      ?.then((s) => {
        if (s?.session === session) sessions.delete(frame);
      })
      .catch(() => {});
  });
  session.on("Runtime.executionContextCreated", ({ context }) => {
    const aux = context.auxData as { isDefault?: boolean; frameId?: string } | undefined;
    if (!aux?.frameId) return;
    if (aux.isDefault) mainWorlds.set(context.id, aux.frameId);
    else if (context.name === WORLD_NAME) worlds.set(aux.frameId, context.id);
  });
  session.on("Runtime.executionContextDestroyed", ({ executionContextId }) => {
    mainWorlds.delete(executionContextId);
    for (const [frameId, id] of worlds) if (id === executionContextId) worlds.delete(frameId);
  });
  session.on("Runtime.executionContextsCleared", () => {
    mainWorlds.clear();
    worlds.clear();
  });
  // Sent together: a session answers in order, so this costs one round trip. Enabling Runtime
  // replays every existing context as an event before it answers; new-document scripts run
  // only for a session with the Page domain on.
  await Promise.all([
    session.send("Runtime.enable"),
    session.send("Page.enable"),
    watchNewDocuments(session, WORLD_NAME),
  ]);
  let root: Promise<string> | undefined;
  return {
    session,
    mainWorlds,
    worlds,
    rootFrameId: () => {
      root ??= session.send("Page.getFrameTree").then((t) => t.frameTree.frame.id);
      return root;
    },
  };
}

/** The session rendering `frame` and the frame's id there: the frame whose main world has `probe`. */
export async function frameContext(
  page: Page,
  frame: Frame,
  probe: string,
): Promise<{ owner: FrameSession; contextId: number; frameId: string } | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0) {
      // What we knew was out of date (a frame moved between processes): ask again, from scratch.
      for (let f: Frame | null = frame; f; f = f.parentFrame()) forgetSession(f);
    }
    for (let f: Frame | null = frame; f; f = f.parentFrame()) {
      const owner = await ownSession(page, f).catch(() => undefined);
      if (!owner) continue;
      try {
        const found = await findContext(owner, probe);
        if (found !== undefined) {
          return { owner, contextId: found, frameId: owner.mainWorlds.get(found)! };
        }
      } catch {
        // The target went away: the next attempt makes a new session.
      }
      break;
    }
  }
  return undefined;
}

/** The main-world context where `probe` holds; throws when the session no longer answers. */
async function findContext(owner: FrameSession, probe: string): Promise<number | undefined> {
  const ids = [...owner.mainWorlds.keys()];
  const answers = await Promise.all(
    ids.map((contextId) =>
      owner.session
        .send("Runtime.evaluate", { expression: `!!(${probe})`, contextId, returnByValue: true })
        .then((r) => r.result.value === true)
        .catch(() => undefined),
    ),
  );
  if (answers.every((a) => a === undefined)) {
    // No context answered (or none is known): is the session itself still alive?
    await owner.session.send("Runtime.evaluate", { expression: "0" });
  }
  return ids[answers.indexOf(true)];
}

/** Our isolated world in the document of `frameId` (a frame this session renders). */
export async function isolatedWorld(owner: FrameSession, frameId: string): Promise<number> {
  const known = owner.worlds.get(frameId);
  if (known !== undefined) return known;
  const { executionContextId } = await owner.session.send("Page.createIsolatedWorld", {
    frameId,
    worldName: WORLD_NAME,
    grantUniveralAccess: false,
  });
  owner.worlds.set(frameId, executionContextId);
  return executionContextId;
}

/** The session of the out-of-process frame `frameId`, among the page's frames. */
export async function sessionOfFrame(
  page: Page,
  frameId: string,
): Promise<FrameSession | undefined> {
  for (const frame of page.frames()) {
    const owner = await ownSession(page, frame).catch(() => undefined);
    if (owner && (await owner.rootFrameId().catch(() => undefined)) === frameId) return owner;
  }
  return undefined;
}
