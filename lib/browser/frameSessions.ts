/**
 * CDP sessions for reaching into frames where page JavaScript cannot (closed shadow roots).
 * A frame is rendered by its own target when it is out-of-process, else by an ancestor's; one
 * session per such target is kept for the life of the target, with the frames' main-world
 * contexts tracked from its events, so that a capture costs no attach, enable or detach.
 * Nothing is kept per navigation: a session whose target went away is dropped and made again.
 */
import type { CDPSession, Frame, Page } from "playwright-core";

export interface FrameSession {
  session: CDPSession;
  /** Main-world execution contexts of the target's frames, live. */
  contexts: Set<number>;
}

const sessions = new WeakMap<Frame, Promise<FrameSession | undefined>>();

/** The session of the target rendering `frame`, or undefined for an in-process frame's own. */
function ownSession(page: Page, frame: Frame): Promise<FrameSession | undefined> {
  let known = sessions.get(frame);
  if (!known) {
    known = open(page, frame);
    sessions.set(frame, known);
  }
  return known;
}

async function open(page: Page, frame: Frame): Promise<FrameSession | undefined> {
  let session: CDPSession;
  try {
    session = await page.context().newCDPSession(frame);
  } catch {
    // An in-process frame has no target of its own: its parent's renders it.
    return undefined;
  }
  const contexts = new Set<number>();
  session.on("Runtime.executionContextCreated", ({ context }) => {
    const aux = context.auxData as { isDefault?: boolean } | undefined;
    if (aux?.isDefault) contexts.add(context.id);
  });
  session.on("Runtime.executionContextDestroyed", ({ executionContextId }) => {
    contexts.delete(executionContextId);
  });
  session.on("Runtime.executionContextsCleared", () => contexts.clear());
  // Enabling replays every existing context as an event before it answers.
  await session.send("Runtime.enable");
  return { session, contexts };
}

/**
 * The session rendering `frame` and the id of the frame's main-world context in it: the one
 * where `probe` (an expression) is truthy.
 */
export async function frameContext(
  page: Page,
  frame: Frame,
  probe: string,
): Promise<{ session: CDPSession; contextId: number } | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    for (let f: Frame | null = frame; f; f = f.parentFrame()) {
      const owner = await ownSession(page, f);
      if (!owner) {
        // A frame that was in-process may move to its own process when it navigates.
        if (attempt > 0) sessions.delete(f);
        continue;
      }
      try {
        const found = await findContext(owner, probe);
        if (found !== undefined) return { session: owner.session, contextId: found };
      } catch {
        // The target went away (a navigation to another process): make a new session.
        sessions.delete(f);
      }
      break;
    }
  }
  return undefined;
}

async function findContext(owner: FrameSession, probe: string): Promise<number | undefined> {
  const ids = [...owner.contexts];
  const answers = await Promise.all(
    ids.map((contextId) =>
      owner.session
        .send("Runtime.evaluate", { expression: `!!(${probe})`, contextId, returnByValue: true })
        .then((r) => r.result.value === true)
        .catch(() => false),
    ),
  );
  if (ids.length === 0) await owner.session.send("Runtime.evaluate", { expression: "0" });
  return ids[answers.indexOf(true)];
}
