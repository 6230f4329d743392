/**
 * Closed shadow roots are invisible to page JavaScript but not to CDP. We hand the host element
 * to CDP through a one-off global, read its shadow root with DOM.describeNode(pierce), and hand
 * the root back to Playwright the same way, so the rest of the resolver stays in Playwright.
 */
import { randomUUID } from "node:crypto";
import type { CDPSession, ElementHandle, Frame, JSHandle, Page } from "playwright-core";

type Stash = Record<string, unknown>;

export async function closedShadowRoot(
  page: Page,
  frame: Frame,
  host: ElementHandle,
): Promise<JSHandle | undefined> {
  const key = `__wayfarer_${randomUUID().replaceAll("-", "")}`;
  let session: CDPSession | undefined;
  try {
    // Non-enumerable and removed at once: page scripts listing globals do not see it.
    await host.evaluate((el, k) => {
      Object.defineProperty(globalThis, k, { value: el, configurable: true, enumerable: false });
    }, key);
    session = await sessionOwning(page, frame);
    const contexts: number[] = [];
    session.on("Runtime.executionContextCreated", (event) => {
      const aux = event.context.auxData as { isDefault?: boolean } | undefined;
      if (aux?.isDefault) contexts.push(event.context.id);
    });
    // Enabling replays every existing context as an event before it answers.
    await session.send("Runtime.enable");
    for (const contextId of contexts) {
      const { result } = await session.send("Runtime.evaluate", {
        expression: `globalThis[${JSON.stringify(key)}]`,
        contextId,
      });
      if (result.subtype !== "node" || !result.objectId) continue;
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
      });
      await session.send("Runtime.callFunctionOn", {
        objectId: object.objectId!,
        functionDeclaration:
          "function (k) { Object.defineProperty(globalThis, k, { value: this, configurable: true, enumerable: false }); }",
        arguments: [{ value: key }],
      });
      return await frame.evaluateHandle((k) => (globalThis as unknown as Stash)[k], key);
    }
    return undefined;
  } finally {
    await frame
      .evaluate((k) => {
        delete (globalThis as unknown as Stash)[k];
      }, key)
      .catch(() => {});
    await session?.detach().catch(() => {});
  }
}

/** The CDP session whose target renders `frame`: its own if it is out-of-process, else an ancestor's. */
export async function sessionOwning(page: Page, frame: Frame): Promise<CDPSession> {
  for (let f: Frame | null = frame; f; f = f.parentFrame()) {
    try {
      return await page.context().newCDPSession(f);
    } catch {
      // An in-process frame has no session of its own: its parent's target renders it.
    }
  }
  return page.context().newCDPSession(page);
}
