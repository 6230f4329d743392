/**
 * Whether a page is still as an outline of it showed it, asked without walking it again: each
 * document an outline walked marks itself as read at the walk's end (DomWatcher.stamp), and
 * says afterwards whether anything changed since (an element, attribute, text, a field's value,
 * the window's size) or another capture marked it. One small call per document, where a walk of
 * a page of thousands of links takes a second; a document that went away, or answers anything
 * but "unchanged", counts as changed.
 */
import type { FrameSession } from "../browser/frameSessions.js";
import type { Outline } from "./outline.js";

/** A walked document: its target's session, our world in it, the mark its walk ended on. */
export interface DocumentMark {
  owner: FrameSession;
  world: number;
  stamp: number;
}

const marksOf = new WeakMap<Outline, DocumentMark[]>();

/** Files the documents an outline was walked from. */
export function rememberMarks(outline: Outline, marks: DocumentMark[]): void {
  marksOf.set(outline, marks);
}

/** True when every document `outline` was walked from is unchanged since its walk. */
export async function unchangedSince(outline: Outline): Promise<boolean> {
  const marks = marksOf.get(outline);
  if (!marks?.length) return false;
  const answers = await Promise.all(
    marks.map(({ owner, world, stamp }) =>
      owner.session
        .send("Runtime.evaluate", {
          expression: `globalThis.__wayfarerDom?.changedSince(${stamp}) === false`,
          contextId: world,
          returnByValue: true,
        })
        .then(({ result }) => result.value === true)
        .catch(() => false),
    ),
  );
  return answers.every(Boolean);
}
