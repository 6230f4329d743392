/**
 * Closed shadow roots are out of reach of page JavaScript, not of CDP. The walk leaves the hosts
 * that may carry one on its stash; here CDP describes either the whole document at once or each
 * outermost host's subtree, whichever costs less, and hands each closed root to the isolated
 * world's store, where later walks of the same document find it without asking again. The call
 * that fetches what to describe also marks the hosts as asked (by their size), and the marks
 * go again if CDP does not look after all: a page with no closed root (nearly every page)
 * costs two round trips when the whole document is described.
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
  frame: { candidates: number; elements: number },
): Promise<number> {
  const { session } = owner;
  const group = newObjectGroup();
  const stash = `globalThis[${JSON.stringify(key)}]`;
  let complete = false;
  try {
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
