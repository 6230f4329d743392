/**
 * The page as the agent's model reads it, and the one it read last. The latest outline is kept
 * with what each of its ids was (role, name, context), so that the model can act on an `[id]`
 * with no second model call, and so that an outline it already has is not sent again unchanged.
 */
import type { ElementIdentity } from "../api/operations.js";
import { inPage } from "../browser/inPage.js";
import { snapshotFor } from "../handlers/pageSnapshot.js";
import { readableMessage } from "../readableError.js";
import { unchangedSince } from "../snapshot/outlineMarks.js";
import type { Deadline } from "../timeout.js";
import type { AgentRun, ToolOutput } from "./tools/defineTool.js";

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

/**
 * Reads the page now, with the identities of its ids, and remembers it as the one read. `part`:
 * that part of an outline over the token budget (from 1), not the one in view.
 */
export async function readPage(
  run: AgentRun,
  deadline: Deadline,
  options: { part?: number } = {},
): Promise<PageReading> {
  const { reading, snapshot } = await outlineNow(run, deadline, true, options.part);
  // Out of time, the tool answers with an error: this reading never reaches the model.
  if (deadline.signal.aborted) throw deadline.signal.reason;
  const unchanged = run.seen.outline?.text === reading.text;
  run.seen.outline = {
    text: reading.text,
    selectors: snapshot.selectors,
    identities: snapshot.identities,
  };
  run.seen.capture = { page: run.page(), snapshot };
  return { ...reading, unchanged };
}

/**
 * What an action's result says after `head` (what was done): the page's outline now, one line
 * when the model already has it, or why it could not be read (the action stands either way: a
 * failed reading must not make the model do it again).
 */
export async function pageAfter(
  run: AgentRun,
  deadline: Deadline,
  head: string,
): Promise<Pick<ToolOutput, "text" | "perishable" | "shortened"> & { url: string }> {
  let after: PageReading;
  try {
    after = await readPage(run, deadline);
  } catch (error) {
    let url = "";
    try {
      url = run.page().url();
    } catch {}
    const why = readableMessage(error).replace(/\.$/, "");
    return {
      text: `${head}\n(The page could not be read after it: ${why}. Read it with outline.)`,
      url,
    };
  }
  if (after.unchanged) {
    return { text: `${head} The page's outline is as before it.`, url: after.url };
  }
  return {
    text: `${head}\n${after.text}`,
    perishable: true,
    shortened: `${head} (The page's outline after it is left out: a newer one came.)`,
    url: after.url,
  };
}

/**
 * The page as the loop check compares it: the text readPage would show (not remembered as
 * read), where it is scrolled to (the page and the area in the middle of the view) and what has
 * the focus, none of which an outline shows. Scrolling on, or tabbing through, is no loop.
 */
export async function pageState(run: AgentRun, deadline: Deadline): Promise<string> {
  const { reading } = await outlineNow(run, deadline, false);
  const where = await run
    .page()
    .playwrightPage.evaluate(inPage(scrollAndFocus))
    .catch(() => "");
  return `${reading.text}\n${where}`;
}

/** Runs in the page: the scroll offsets from the middle of the view up, and the focus. */
function scrollAndFocus(): string {
  const offsets: string[] = [`${scrollX},${scrollY}`];
  for (let at = document.elementFromPoint(innerWidth / 2, innerHeight / 2); at; ) {
    if (at.scrollTop || at.scrollLeft) offsets.push(`${at.scrollLeft},${at.scrollTop}`);
    at = at.parentElement;
  }
  const f = document.activeElement;
  const focus =
    f && f !== document.body ? `${f.tagName}#${f.id}@${f.textContent?.slice(0, 40)}` : "";
  return `${offsets.join(" ")} ${focus}`;
}

/** `remembered`: the reading the model is given (identities read, the capture marked). */
async function outlineNow(run: AgentRun, deadline: Deadline, remembered: boolean, asked?: number) {
  const page = run.page();
  // Another part of the outline read last comes from its capture, while the page is unchanged.
  const last = asked === undefined ? undefined : run.seen.capture;
  const snapshot =
    last?.page === page && (await unchangedSince(last.snapshot))
      ? last.snapshot
      : await snapshotFor(
          page,
          { identities: remembered, marked: remembered },
          run.actSettings,
          deadline,
        );
  const parts = Math.max(1, snapshot.chunks.length);
  if (asked !== undefined && asked > parts) {
    throw new Error(
      `the page's outline has ${parts === 1 ? "one part" : `${parts} parts`}; there is no part ${asked}`,
    );
  }
  // Over the token budget, the part in view (scrolling brings the rest), or the one asked for.
  const at = asked === undefined ? snapshot.startChunk : asked - 1;
  const where =
    asked === undefined
      ? ", the part in view; scroll for the rest"
      : "; ask for another by its number";
  const part =
    snapshot.chunks.length > 1
      ? `(part ${at + 1} of ${snapshot.chunks.length}${where})\n${snapshot.chunks[at]!.text}`
      : snapshot.text;
  const url = page.url();
  return { reading: { text: `URL: ${url}\n${part}`, part, url }, snapshot };
}
