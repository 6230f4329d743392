/**
 * A click made at once (lib/browser/directClick.ts) leaves nothing behind: over three hundred
 * clicks, by XPath and on a handle, aimed and dropped, refused, the page's session carries the
 * listeners it carried after the first (its navigation watch taken off each time), Playwright's
 * page too, and the window no guard of a click; and the page's session is the same one.
 */
import type { CDPSession, Page as PlaywrightPage } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  aimClick,
  aimClickAtXPath,
  clickAtXPath,
  clickDirectly,
  dropAim,
} from "../../lib/browser/directClick.js";
import { type FrameSession, isolatedWorld, ownSession } from "../../lib/browser/frameSessions.js";
import { type Deadline, withTimeout } from "../../lib/timeout.js";
import { useClients } from "../support/clients.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();
/**
 * Clicks of each way: anything a click left behind would show as a count past the first's (a
 * thousand took 22 s of the suite and showed nothing more).
 */
const ROUNDS = 120;

const PAGE = `<!doctype html><html><body>
  <button id="b" style="position:absolute;left:100px;top:50px;width:80px;height:40px"
    onclick="window.clicks = (window.clicks ?? 0) + 1">Go</button>
  <button id="covered" style="position:absolute;left:300px;top:50px;width:80px;height:40px">Hidden</button>
  <div style="position:fixed;left:290px;top:40px;width:120px;height:70px;background:#ccc"></div>
</body></html>`;

/** The CDP events a navigation watch listens to. */
const WATCHED = [
  "Page.frameRequestedNavigation",
  "Page.frameNavigated",
  "Page.navigatedWithinDocument",
  "Page.frameStoppedLoading",
  "Page.downloadWillBegin",
];

/** Listeners on the window of one world of the top document (a guard's are capture listeners). */
async function windowListeners(session: CDPSession, contextId?: number): Promise<number> {
  const { result } = await session.send("Runtime.evaluate", {
    expression: "window",
    ...(contextId === undefined ? {} : { contextId }),
  });
  const { listeners } = await session.send("DOMDebugger.getEventListeners", {
    objectId: result.objectId!,
  });
  await session.send("Runtime.releaseObject", { objectId: result.objectId! });
  return listeners.length;
}

/** Playwright's emitters count their listeners; its types do not say so. */
const listenerCount = (emitter: object, event: string) =>
  (emitter as { listenerCount(event: string): number }).listenerCount(event);

/** What a click could leave behind, counted. */
async function leftBehind(pw: PlaywrightPage, owner: FrameSession, probe: CDPSession) {
  const world = await isolatedWorld(owner, await owner.rootFrameId());
  return {
    session: Object.fromEntries(WATCHED.map((e) => [e, listenerCount(owner.session, e)])),
    page: listenerCount(pw, "framenavigated"),
    // The handle's guard lives in the page's main world, the XPath's in Wayfarer's.
    mainWorld: await windowListeners(probe),
    ourWorld: await windowListeners(owner.session, world),
  };
}

describe("hundreds of clicks made at once", () => {
  it("leave no listener on the page's session or page, no guard in the page, no new session", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("basic.html"));
    const pw = page.playwrightPage;
    await pw.setContent(PAGE);
    const owner = (await ownSession(pw, pw.mainFrame()))!;
    const probe = await pw.context().newCDPSession(pw);
    try {
      const under = <T>(work: (d: Deadline) => Promise<T>) =>
        withTimeout("test", 10_000, "a click", work);
      // One of each first: Playwright sets up its page script (and its own listeners, once) for
      // the first handle.
      const button = (await pw.$("#b"))!;
      expect(await under((d) => clickAtXPath(pw, "//button[@id='b']", undefined, {}, d))).toBe(
        true,
      );
      expect(await under((d) => clickDirectly(pw, pw.mainFrame(), button, {}, d))).toBe(true);
      const first = await leftBehind(pw, owner, probe);
      // What the count sees: an aimed click's watch and guard, while they are up.
      const aims = [await aimClickAtXPath(pw, "//button[@id='b']")];
      const byXPath = await leftBehind(pw, owner, probe);
      aims.push(await aimClick(pw, pw.mainFrame(), button));
      const both = await leftBehind(pw, owner, probe);
      const watching = (counted: { session: Record<string, number> }) =>
        counted.session["Page.frameNavigated"] ?? 0;
      expect(watching(byXPath)).toBe(watching(first) + 1);
      expect(byXPath.ourWorld).toBeGreaterThan(first.ourWorld);
      expect(both.mainWorld).toBeGreaterThan(first.mainWorld);
      for (const aimed of aims) await dropAim(aimed);
      let made = 2;
      for (let i = 0; i < ROUNDS; i++) {
        if (await under((d) => clickAtXPath(pw, "//button[@id='b']", undefined, {}, d))) made++;
      }
      for (let i = 0; i < ROUNDS; i++) {
        if (await under((d) => clickDirectly(pw, pw.mainFrame(), button, {}, d))) made++;
      }
      for (let i = 0; i < ROUNDS / 4; i++) {
        // Aimed, its guard installed and its watch started, then not clicked.
        await dropAim(await aimClickAtXPath(pw, "//button[@id='b']"));
        await dropAim(await aimClick(pw, pw.mainFrame(), button));
      }
      const covered = (await pw.$("#covered"))!;
      for (let i = 0; i < ROUNDS / 4; i++) {
        // Refused at the aim: something else is on top.
        expect(await aimClick(pw, pw.mainFrame(), covered)).toEqual({ wait: "covered" });
      }
      await Promise.all([button.dispose(), covered.dispose()]);
      expect(made).toBe(2 + 2 * ROUNDS);
      expect(await pw.evaluate(() => (window as unknown as { clicks: number }).clicks)).toBe(
        2 + 2 * ROUNDS,
      );
      expect(await leftBehind(pw, owner, probe)).toEqual(first);
      expect(await ownSession(pw, pw.mainFrame())).toBe(owner);
    } finally {
      await probe.detach().catch(() => {});
    }
  }, 180_000);
});
