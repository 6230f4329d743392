/**
 * Whether a page is still as an outline showed it (lib/snapshot/outlineMarks.ts, the marks of
 * domActivity.ts), on a real Chromium: every kind of change a later outline would show makes
 * the earlier one stale, in the main document, a shadow root, a same-site and a cross-site
 * frame; nothing else does; and a later capture marks the documents anew.
 */
import type { Frame, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DOM_ACTIVITY_SOURCE } from "../../lib/browser/domActivity.js";
import { unchangedSince } from "../../lib/snapshot/outlineMarks.js";
import { useClients } from "../support/clients.js";
import { snapshotOf } from "../support/outline.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const MARKED = { marked: true };
const clients = useClients();

async function opened(file: string) {
  const client = await clients.open();
  const page = client.context.activePage()!;
  await page.goto(server.url(file));
  return { client, page: page.playwrightPage };
}

/** Each change, made after a capture: the outline is stale afterwards. */
const CHANGES: [string, (page: Page) => Promise<unknown>][] = [
  ["an element added", (p) => p.evaluate(() => document.body.append(document.createElement("p")))],
  ["an attribute", (p) => p.evaluate(() => document.body.setAttribute("data-x", "1"))],
  [
    "a text",
    (p) => p.evaluate(() => ((document.querySelector("h1")!.firstChild as Text).data = "New")),
  ],
  ["a field typed into", (p) => p.locator("input").first().pressSequentially("ab")],
  [
    "a field's value set by script, with its event",
    (p) =>
      p.evaluate(() => {
        const input = document.querySelector("input")!;
        input.value = "set";
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }),
  ],
  ["the window's size", (p) => p.setViewportSize({ width: 700, height: 500 })],
  ["a navigation", (p) => p.reload()],
];

describe("outline marks", () => {
  for (const [what, change] of CHANGES) {
    it(`an outline is stale after ${what}, and fresh again after the next capture`, async () => {
      const { client, page } = await opened("outline/form.html");
      const first = await snapshotOf(client, MARKED);
      expect(await unchangedSince(first)).toBe(true);
      // Reading the page changes nothing.
      await page.evaluate(() => document.body.getBoundingClientRect());
      expect(await unchangedSince(first)).toBe(true);
      await change(page);
      expect(await unchangedSince(first)).toBe(false);
      const second = await snapshotOf(client, MARKED);
      expect(await unchangedSince(second)).toBe(true);
      // The later capture marked the page anew: the first outline stays stale.
      expect(await unchangedSince(first)).toBe(false);
    });
  }

  it("sees a change inside a shadow root", async () => {
    const { client, page } = await opened("outline/shadow-slots.html");
    const snapshot = await snapshotOf(client, MARKED);
    expect(await unchangedSince(snapshot)).toBe(true);
    await page.evaluate(() => {
      const outer = document.querySelector("outer-box")!.shadowRoot!;
      const inner = outer.querySelector("inner-box")!.shadowRoot!;
      inner.querySelector("button")!.textContent = "Changed deep";
    });
    expect(await unchangedSince(snapshot)).toBe(false);
  });

  it("sees a change in a same-site frame and in a cross-site one", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    const url = `${server.url("outline/frames-outer.html")}?other=${encodeURIComponent(server.otherSite)}`;
    await page.goto(url);
    const frame = (path: string): Frame =>
      page.playwrightPage.frames().find((f) => f.url().includes(path))!;
    await expect.poll(() => page.playwrightPage.frames().length).toBeGreaterThanOrEqual(4);
    for (const path of ["frames-same.html", "frames-cross.html"]) {
      const snapshot = await snapshotOf(client, MARKED);
      expect(await unchangedSince(snapshot), path).toBe(true);
      await frame(path).evaluate(() => document.body.append("more"));
      expect(await unchangedSince(snapshot), path).toBe(false);
    }
  });

  it("marks documents apart: two fresh documents' first marks differ", async () => {
    const { page } = await opened("outline/form.html");
    const stamp = `${DOM_ACTIVITY_SOURCE}.watch().stamp()`;
    const first = await page.evaluate(stamp);
    await page.reload();
    const second = await page.evaluate(stamp);
    // A document that reused a gone one's context id must not answer "unchanged" to its marks.
    expect(second).not.toBe(first);
  });

  it("an outline not asked to be marked (or of a closed page) is not unchanged", async () => {
    const { client } = await opened("outline/form.html");
    // Captures that do not ask (act, extract, observe) leave no mark, and start no observer.
    const unmarked = await snapshotOf(client);
    expect(await unchangedSince(unmarked)).toBe(false);
    const snapshot = await snapshotOf(client, MARKED);
    expect(await unchangedSince({ ...snapshot })).toBe(false);
    // An unmarked capture after it marks nothing anew: the marked outline still holds.
    await snapshotOf(client);
    expect(await unchangedSince(snapshot)).toBe(true);
    await client.context.activePage()!.playwrightPage.close();
    expect(await unchangedSince(snapshot)).toBe(false);
  });
});
