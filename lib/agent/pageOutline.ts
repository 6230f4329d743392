/**
 * The page as the agent's model reads it, and the one it read last. The latest outline is kept
 * with what each of its ids was (role, name, context), so that the model can act on an `[id]`
 * with no second model call, and so that an outline it already has is not sent again unchanged.
 */
import type { ElementIdentity } from "../api/operations.js";
import { snapshotFor } from "../handlers/pageSnapshot.js";
import type { Deadline } from "../timeout.js";
import type { AgentRun } from "./tools/defineTool.js";

/** The latest outline the model was shown: its text, and each id's element as it was then. */
export interface SeenOutline {
  text: string;
  selectors: Record<string, string>;
  identities: Record<string, ElementIdentity>;
}

export interface PageReading {
  /** `URL: …` and the outline (the part in view, when it is over the token budget). */
  text: string;
  /** The outline part alone, as the run's action records keep it. */
  part: string;
  url: string;
  /** The model was shown this very text last: it need not read it again. */
  unchanged: boolean;
}

export const UNCHANGED_OUTLINE =
  "The page has not changed since the outline you read last: it and its ids still hold.";

/** Reads the page now, with the identities of its ids, and remembers it as the one read. */
export async function readPage(run: AgentRun, deadline: Deadline): Promise<PageReading> {
  const { reading, snapshot } = await outlineNow(run, deadline, true);
  const unchanged = run.seen.outline?.text === reading.text;
  run.seen.outline = {
    text: reading.text,
    selectors: snapshot.selectors,
    identities: snapshot.identities,
  };
  return { ...reading, unchanged };
}

/**
 * The page as the loop check compares it: the text readPage would show, not remembered as
 * read. Two calls that leave the page the same give the same text.
 */
export async function pageState(run: AgentRun, deadline: Deadline): Promise<string> {
  return (await outlineNow(run, deadline, false)).reading.text;
}

async function outlineNow(run: AgentRun, deadline: Deadline, identities: boolean) {
  const page = run.page();
  const snapshot = await snapshotFor(page, { identities }, run.actSettings, deadline);
  // Over the token budget, the part in view; scrolling brings the rest.
  const part =
    snapshot.chunks.length > 1
      ? `(part ${snapshot.startChunk + 1} of ${snapshot.chunks.length}, the part in view; scroll for the rest)\n${snapshot.chunks[snapshot.startChunk]!.text}`
      : snapshot.text;
  const url = page.url();
  return { reading: { text: `URL: ${url}\n${part}`, part, url }, snapshot };
}
