/**
 * Closed shadow roots are invisible to page JavaScript but not to CDP. We hand the host element
 * to CDP through a one-off global, read its shadow root with DOM.describeNode(pierce), and hand
 * the root back to Playwright the same way, so the rest of the resolver stays in Playwright.
 */
import { randomUUID } from "node:crypto";
import type { ElementHandle, Frame, JSHandle, Page } from "playwright-core";
import { frameContext, newObjectGroup } from "./frameSessions.js";

type Stash = Record<string, unknown>;

export async function closedShadowRoot(
  page: Page,
  frame: Frame,
  host: ElementHandle,
): Promise<JSHandle | undefined> {
  const key = `__wayfarer_${randomUUID().replaceAll("-", "")}`;
  const global = `globalThis[${JSON.stringify(key)}]`;
  let release: (() => Promise<unknown>) | undefined;
  const group = newObjectGroup();
  try {
    // Non-enumerable and removed at once: page scripts listing globals do not see it.
    await host.evaluate((el, k) => {
      Object.defineProperty(globalThis, k, { value: el, configurable: true, enumerable: false });
    }, key);
    const found = await frameContext(page, frame, global);
    if (!found) return undefined;
    const { owner, contextId } = found;
    const session = owner.session;
    release = () => session.send("Runtime.releaseObjectGroup", { objectGroup: group });
    const { result } = await session.send("Runtime.evaluate", {
      expression: global,
      contextId,
      objectGroup: group,
    });
    if (result.subtype !== "node" || !result.objectId) return undefined;
    const { node } = await session.send("DOM.describeNode", {
      objectId: result.objectId,
      depth: 1,
      pierce: true,
    });
    // Form controls carry a user-agent root of their own: that is not the page's.
    const root = node.shadowRoots?.find((r) => r.shadowRootType !== "user-agent");
    if (!root) return undefined;
    const { object } = await session.send("DOM.resolveNode", {
      backendNodeId: root.backendNodeId,
      executionContextId: contextId,
      objectGroup: group,
    });
    await session.send("Runtime.callFunctionOn", {
      objectId: object.objectId!,
      functionDeclaration:
        "function (k) { Object.defineProperty(globalThis, k, { value: this, configurable: true, enumerable: false }); }",
      arguments: [{ value: key }],
    });
    return await frame.evaluateHandle((k) => (globalThis as unknown as Stash)[k], key);
  } finally {
    await frame
      .evaluate((k) => {
        delete (globalThis as unknown as Stash)[k];
      }, key)
      .catch(() => {});
    await release?.().catch(() => {});
  }
}
