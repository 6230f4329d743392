/**
 * Closed shadow roots are out of reach of page JavaScript, not of CDP. The walk leaves the hosts
 * that may carry one on the frame's stash; here CDP looks at all of them in one batch and hands
 * each closed root back into the stash, so that the next walk goes inside.
 */
import type { Frame, Page } from "playwright-core";
import { sessionOwning } from "../browser/closedShadowRoot.js";

const GROUP = "wayfarer-snapshot";

/** Adds the closed roots of the stash's candidate hosts to the stash; returns how many were new. */
export async function revealClosedRoots(page: Page, frame: Frame, key: string): Promise<number> {
  const session = await sessionOwning(page, frame);
  try {
    const contexts: number[] = [];
    session.on("Runtime.executionContextCreated", (event) => {
      const aux = event.context.auxData as { isDefault?: boolean } | undefined;
      if (aux?.isDefault) contexts.push(event.context.id);
    });
    // Enabling replays every existing context as an event before it answers.
    await session.send("Runtime.enable");
    for (const contextId of contexts) {
      const { result } = await session.send("Runtime.evaluate", {
        expression: `globalThis[${JSON.stringify(key)}]?.candidates`,
        contextId,
        objectGroup: GROUP,
      });
      if (result.subtype !== "array" || !result.objectId) continue;
      const { result: items } = await session.send("Runtime.getProperties", {
        objectId: result.objectId,
        ownProperties: true,
      });
      const hosts = items.flatMap((p) => (p.value?.subtype === "node" ? [p.value.objectId!] : []));
      const described = await Promise.all(
        hosts.map((objectId) =>
          session.send("DOM.describeNode", { objectId, depth: 1, pierce: true }).catch(() => null),
        ),
      );
      const roots = described.flatMap(
        (d) => d?.node.shadowRoots?.filter((r) => r.shadowRootType === "closed") ?? [],
      );
      const added = await Promise.all(
        roots.map(async (root) => {
          const { object } = await session.send("DOM.resolveNode", {
            backendNodeId: root.backendNodeId,
            executionContextId: contextId,
            objectGroup: GROUP,
          });
          const { result: isNew } = await session.send("Runtime.callFunctionOn", {
            objectId: object.objectId!,
            functionDeclaration:
              "function (k) { const s = globalThis[k]; if (s.roots.includes(this)) return 0; s.roots.push(this); return 1; }",
            arguments: [{ value: key }],
            returnByValue: true,
          });
          return isNew.value as number;
        }),
      );
      return added.reduce((a, b) => a + b, 0);
    }
    return 0;
  } finally {
    await session.send("Runtime.releaseObjectGroup", { objectGroup: GROUP }).catch(() => {});
    await session.detach().catch(() => {});
  }
}
