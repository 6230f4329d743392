/**
 * Closed shadow roots are out of reach of page JavaScript, not of CDP. The walk leaves the hosts
 * that may carry one on the frame's stash; here CDP looks at all of them in one batch and hands
 * each closed root back into the stash, so that the next walk goes inside.
 */
import type { Frame, Page } from "playwright-core";
import { frameContext } from "../browser/frameSessions.js";

const GROUP = "wayfarer-snapshot";

/** The part of CDP's DOM.Node read here. */
interface DomNode {
  backendNodeId: number;
  shadowRootType?: string;
  shadowRoots?: DomNode[];
  children?: DomNode[];
}

/** Adds the closed roots of the stash's candidate hosts to the stash; returns how many were new. */
export async function revealClosedRoots(page: Page, frame: Frame, key: string): Promise<number> {
  const stash = `globalThis[${JSON.stringify(key)}]`;
  const found = await frameContext(page, frame, stash);
  if (!found) return 0;
  const { session, contextId } = found;
  try {
    const { result: list } = await session.send("Runtime.evaluate", {
      expression: `${stash}.candidates`,
      contextId,
      objectGroup: GROUP,
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
          executionContextId: contextId,
          objectGroup: GROUP,
        }),
      ),
    );
    // Hosts asked about once are not asked about again in this capture.
    const { result: added } = await session.send("Runtime.callFunctionOn", {
      objectId: list.objectId,
      functionDeclaration: `function (...roots) {
        const s = ${stash};
        for (const h of s.candidates) s.checked.add(h);
        let n = 0;
        for (const r of roots) if (!s.roots.includes(r)) { s.roots.push(r); n++; }
        return n;
      }`,
      arguments: roots.map((r) => ({ objectId: r.object.objectId! })),
      returnByValue: true,
    });
    return added.value as number;
  } finally {
    // Not awaited: later commands on this session are ordered after it anyway.
    session.send("Runtime.releaseObjectGroup", { objectGroup: GROUP }).catch(() => {});
  }
}

function collectClosedRoots(node: DomNode, into: DomNode[]): void {
  for (const root of node.shadowRoots ?? []) {
    if (root.shadowRootType === "closed") into.push(root);
    collectClosedRoots(root, into);
  }
  // A frame's document is captured on its own; do not go into it here.
  for (const child of node.children ?? []) collectClosedRoots(child, into);
}
