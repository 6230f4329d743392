/**
 * Closed shadow roots are out of reach of page JavaScript, not of CDP. The walk leaves the hosts
 * that may carry one on its stash; here CDP is asked whether any is there before anything is
 * described. For the root document of a target, one census answers: CDP's own DOM search
 * (`DOM.performSearch` for "<": every element of the target's documents, closed shadow trees
 * included, and every text or comment that holds a "<") against the same count taken in the
 * isolated world through open and known closed roots and same-origin frames. Equal counts, and
 * no custom element among the hosts, mean nothing is hidden (nearly every page: 1–3 ms against 5–20 ms for a description of the
 * document). Otherwise CDP describes either the whole document at once or each outermost host's
 * subtree, whichever costs less, and hands each closed root to the isolated world's store, where
 * later walks of the same document find it without asking again. The call that fetches what to
 * describe also marks the hosts as asked (by their size), and the marks go again if CDP does not
 * look after all.
 */
import { type FrameSession, newObjectGroup } from "../browser/frameSessions.js";
import { DocumentChangedError } from "./snapshotErrors.js";

/**
 * The whole document is described at once when it has fewer than this many elements per
 * candidate host, or more than ONE_BY_ONE hosts. Measured on saved real-world pages: one
 * description costs about 12 µs an element, a round trip per host 0.3–0.9 ms.
 */
const ELEMENTS_PER_HOST = 40;
const ONE_BY_ONE = 100;

/** The part of CDP's DOM.Node read here. */
interface DomNode {
  backendNodeId: number;
  shadowRootType?: string;
  shadowRoots?: DomNode[];
  children?: DomNode[];
}

/**
 * Stores the closed roots under the stash's candidate hosts; returns how many were new.
 * `candidates` and `elements`: how many hosts the walk left, and how many elements the frame's
 * document has.
 */
export async function revealClosedRoots(
  owner: FrameSession,
  world: number,
  key: string,
  /** `root`: the frame is its target's root (a census covers the target's documents). */
  frame: { candidates: number; elements: number; root: boolean },
): Promise<number> {
  const { session } = owner;
  const group = newObjectGroup();
  const stash = `globalThis[${JSON.stringify(key)}]`;
  let complete = false;
  try {
    if (frame.root && (await nothingHidden(owner, world, stash))) {
      complete = true;
      return 0;
    }
    const whole =
      frame.candidates > ONE_BY_ONE || frame.elements < ELEMENTS_PER_HOST * frame.candidates;
    const hosts = whole
      ? await documentElement(owner, world, group, stash)
      : await outermostCandidates(owner, world, group, stash);
    // Each subtree at once: closed roots inside closed roots come in the same answer.
    const described = await Promise.all(
      hosts.map((objectId) =>
        session.send("DOM.describeNode", { objectId, depth: -1, pierce: true }).catch(() => null),
      ),
    );
    const closed: DomNode[] = [];
    for (const d of described) if (d) collectClosedRoots(d.node, closed);
    complete = !described.includes(null);
    if (closed.length === 0) return 0;
    const roots = await Promise.all(
      closed.map((root) =>
        session
          .send("DOM.resolveNode", {
            backendNodeId: root.backendNodeId,
            executionContextId: world,
            objectGroup: group,
          })
          .then((r) => (r.object.objectId ? [{ objectId: r.object.objectId }] : []))
          // Gone meanwhile, or not reachable from here: the next capture asks again.
          .catch(() => {
            complete = false;
            return [];
          }),
      ),
    );
    const { result: added, exceptionDetails } = await session.send("Runtime.callFunctionOn", {
      executionContextId: world,
      functionDeclaration: `function (...roots) {
        const store = globalThis.__wayfarer;
        let n = 0;
        for (const r of roots) if (store.roots.get(r.host) !== r) { store.roots.set(r.host, r); n++; }
        return n;
      }`,
      arguments: roots.flat(),
      returnByValue: true,
    });
    if (exceptionDetails) complete = false;
    return exceptionDetails ? 0 : Number(added.value) || 0;
  } finally {
    if (!complete) forgetAsked(owner, world, key);
    // Not awaited: later commands on this session are ordered after it anyway.
    session.send("Runtime.releaseObjectGroup", { objectGroup: group }).catch(() => {});
  }
}

/**
 * The walk marked its candidates as asked; when CDP did not in fact look at them all, the
 * marks go, and the next walk asks again. Not awaited: later commands come after it anyway.
 */
export function forgetAsked(owner: FrameSession, world: number, key: string): void {
  owner.session
    .send("Runtime.evaluate", {
      expression: `for (const h of globalThis[${JSON.stringify(key)}]?.candidates ?? []) globalThis.__wayfarer.checked.delete(h)`,
      contextId: world,
    })
    .catch(() => {});
}

/** Sessions whose DOM agent has a document: DOM.performSearch answers only then. */
const searchable = new WeakSet<FrameSession>();

/**
 * Whether the target's documents hold nothing CDP sees that the isolated world does not (the
 * hosts are marked as asked either way). The two counts are taken in one round trip, a moment
 * apart: a page that changed in between only makes them differ, and the description follows.
 * The census counts elements, not every text: a closed root holding text alone is missed by it,
 * so a custom element among the hosts (where such roots live: a badge, a label) is always
 * described. What is left unseen: a closed root of text alone on a plain element (a `div`),
 * docs/guide/extract.md, "Shadow roots".
 */
async function nothingHidden(owner: FrameSession, world: number, stash: string): Promise<boolean> {
  const { session } = owner;
  try {
    if (!searchable.has(owner)) {
      searchable.add(owner);
      // Sent ahead of the search, in order; the agent keeps its document across navigations.
      session.send("DOM.getDocument", { depth: 0 }).catch(() => searchable.delete(owner));
    }
    const [search, census] = await Promise.all([
      session.send("DOM.performSearch", { query: "<", includeUserAgentShadowDOM: false }),
      session.send("Runtime.evaluate", {
        expression: `(() => { ${markAsked(stash)} return s.candidates.some((c) => c.localName.includes("-")) ? -1 : (${CENSUS})(globalThis.__wayfarer.roots); })()`,
        contextId: world,
        returnByValue: true,
      }),
    ]);
    session.send("DOM.discardSearchResults", { searchId: search.searchId }).catch(() => {});
    if (census.exceptionDetails) throw new DocumentChangedError("the capture's stash is gone");
    return search.resultCount === census.result.value;
  } catch (error) {
    if (error instanceof DocumentChangedError) throw error;
    // No search here (an older browser, a target that refuses it): the description answers.
    return false;
  }
}

/**
 * What DOM.performSearch counts for "<", counted from the isolated world: from each document
 * element down (what is outside it, a comment before <html>, it does not search), every element,
 * and every text, CDATA or comment node whose text holds a "<"; through open roots, the closed
 * roots the store knows, and the documents of same-origin frames (a frame of the same target
 * the world cannot open makes the counts differ: the description follows).
 */
const CENSUS = `function (roots) {
  let n = 0;
  const shown = NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT | NodeFilter.SHOW_CDATA_SECTION | NodeFilter.SHOW_COMMENT;
  const element = (el) => {
    n++;
    const shadow = el.shadowRoot ?? roots.get(el);
    if (shadow) below(shadow);
    let inner = null;
    try { inner = el.contentDocument?.documentElement ?? null; } catch {}
    if (inner) { element(inner); below(inner); }
  };
  const below = (top) => {
    const walker = document.createTreeWalker(top, shown);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === 1) element(node);
      else if (node.data.includes("<")) n++;
    }
  };
  const top = document.documentElement;
  if (top) { element(top); below(top); }
  return n;
}`;

/** Marks the stash's hosts as asked; throws in the page when the stash is gone. */
const markAsked = (stash: string) =>
  `const s = ${stash}; for (let i = 0; i < s.candidates.length; i++) globalThis.__wayfarer.checked.set(s.candidates[i], s.sizes[i]);`;

async function documentElement(
  owner: FrameSession,
  world: number,
  group: string,
  stash: string,
): Promise<string[]> {
  const { result, exceptionDetails } = await owner.session.send("Runtime.evaluate", {
    expression: `(() => { ${markAsked(stash)} return document.documentElement; })()`,
    contextId: world,
    objectGroup: group,
  });
  if (exceptionDetails) throw new DocumentChangedError("the capture's stash is gone");
  return result.objectId ? [result.objectId] : [];
}

/** Only the outermost candidates: a description of a host's whole subtree covers the rest. */
async function outermostCandidates(
  owner: FrameSession,
  world: number,
  group: string,
  stash: string,
): Promise<string[]> {
  const { session } = owner;
  const { result: list, exceptionDetails } = await session.send("Runtime.evaluate", {
    expression: `(() => {
      ${markAsked(stash)}
      const all = s.candidates;
      const set = new Set(all);
      return all.filter((c) => {
        for (let p = c.parentNode; p; p = p.parentNode ?? p.host) if (set.has(p)) return false;
        return true;
      });
    })()`,
    contextId: world,
    objectGroup: group,
  });
  if (exceptionDetails) throw new DocumentChangedError("the capture's stash is gone");
  if (!list.objectId) return [];
  const { result: items } = await session.send("Runtime.getProperties", {
    objectId: list.objectId,
    ownProperties: true,
  });
  return items.flatMap((p) => (p.value?.subtype === "node" ? [p.value.objectId!] : []));
}

function collectClosedRoots(node: DomNode, into: DomNode[]): void {
  for (const root of node.shadowRoots ?? []) {
    if (root.shadowRootType === "closed") into.push(root);
    collectClosedRoots(root, into);
  }
  for (const child of node.children ?? []) collectClosedRoots(child, into);
}
