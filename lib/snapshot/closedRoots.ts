/**
 * Closed shadow roots are out of reach of page JavaScript, not of CDP. The walk leaves the hosts
 * that may carry one on its stash; here CDP looks at all of them in one batch and hands each
 * closed root to the isolated world's store, where later walks of the same document find it
 * without asking again.
 */
import { type FrameSession, newObjectGroup } from "../browser/frameSessions.js";

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
    const { result: list } = await session.send("Runtime.evaluate", {
      expression: `globalThis[${JSON.stringify(key)}].candidates`,
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
        session.send("DOM.resolveNode", {
          backendNodeId: root.backendNodeId,
          executionContextId: world,
          objectGroup: group,
        }),
      ),
    );
    // Hosts asked about once are not asked about again while the document lives.
    const { result: added } = await session.send("Runtime.callFunctionOn", {
      objectId: list.objectId,
      functionDeclaration: `function (...roots) {
        const store = globalThis.__wayfarer;
        for (const h of this) store.checked.add(h);
        let n = 0;
        for (const r of roots) if (store.roots.get(r.host) !== r) { store.roots.set(r.host, r); n++; }
        return n;
      }`,
      arguments: roots.map((r) => ({ objectId: r.object.objectId! })),
      returnByValue: true,
    });
    return added.value as number;
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
