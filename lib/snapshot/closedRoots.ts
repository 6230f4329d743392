/**
 * Closed shadow roots are out of reach of page JavaScript, not of CDP. The walk leaves the hosts
 * that may carry one on its stash; here CDP looks at all of them in one batch and hands each
 * closed root to the isolated world's store, where later walks of the same document find it
 * without asking again.
 */
import { type FrameSession, newObjectGroup } from "../browser/frameSessions.js";

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

/** Stores the closed roots of the stash's candidate hosts; returns how many were new. */
export async function revealClosedRoots(
  owner: FrameSession,
  world: number,
  key: string,
): Promise<number> {
  const { session } = owner;
  const group = newObjectGroup();
  try {
    // The whole document, or only the outermost candidates: a description of a host's whole
    // subtree covers the rest.
    const { result: list } = await session.send("Runtime.evaluate", {
      expression: `(() => {
        const all = globalThis[${JSON.stringify(key)}].candidates;
        const elements = document.getElementsByTagName("*").length;
        if (all.length > ${ONE_BY_ONE} || elements < ${ELEMENTS_PER_HOST} * all.length) {
          return [document.documentElement];
        }
        const set = new Set(all);
        return all.filter((c) => {
          for (let p = c.parentNode; p; p = p.parentNode ?? p.host) if (set.has(p)) return false;
          return true;
        });
      })()`,
      contextId: world,
      objectGroup: group,
    });
    if (!list.objectId) return 0;
    const { result: items } = await session.send("Runtime.getProperties", {
      objectId: list.objectId,
      ownProperties: true,
    });
    const hosts = items.flatMap((p) => (p.value?.subtype === "node" ? [p.value.objectId!] : []));
    // The whole subtree at once: closed roots inside closed roots come in the same answer.
    const described = await Promise.all(
      hosts.map((objectId) =>
        session.send("DOM.describeNode", { objectId, depth: -1, pierce: true }).catch(() => null),
      ),
    );
    const closed: DomNode[] = [];
    for (const d of described) if (d) collectClosedRoots(d.node, closed);
    const roots = await Promise.all(
      closed.map((root) =>
        session
          .send("DOM.resolveNode", {
            backendNodeId: root.backendNodeId,
            executionContextId: world,
            objectGroup: group,
          })
          .then((r) => (r.object.objectId ? [{ objectId: r.object.objectId }] : []))
          // Gone meanwhile: the next capture finds it again if it comes back.
          .catch(() => []),
      ),
    );
    // A host asked about is not asked again while its size stays the same: a root attached
    // later (a component defined late) usually changes what it renders.
    const { result: added, exceptionDetails } = await session.send("Runtime.callFunctionOn", {
      executionContextId: world,
      functionDeclaration: `function (...roots) {
        const store = globalThis.__wayfarer;
        const all = globalThis[${JSON.stringify(key)}].candidates;
        for (const h of all) {
          const r = h.getBoundingClientRect();
          store.checked.set(h, Math.round(r.width) + "x" + Math.round(r.height));
        }
        let n = 0;
        for (const r of roots) if (store.roots.get(r.host) !== r) { store.roots.set(r.host, r); n++; }
        return n;
      }`,
      arguments: roots.flat(),
      returnByValue: true,
    });
    return exceptionDetails ? 0 : Number(added.value) || 0;
  } finally {
    // Not awaited: later commands on this session are ordered after it anyway.
    session.send("Runtime.releaseObjectGroup", { objectGroup: group }).catch(() => {});
  }
}

function collectClosedRoots(node: DomNode, into: DomNode[]): void {
  for (const root of node.shadowRoots ?? []) {
    if (root.shadowRootType === "closed") into.push(root);
    collectClosedRoots(root, into);
  }
  for (const child of node.children ?? []) collectClosedRoots(child, into);
}
