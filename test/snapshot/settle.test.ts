import { describe, expect, it } from "vitest";
import { LONG_REQUEST_MS } from "../../lib/browser/networkActivity.js";
import type { LogLine } from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { delayedSent, useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

/** A client whose debug lines say, per capture, what settling waited for. */
async function openWatchingSettle() {
  const lines: LogLine[] = [];
  const client = await clients.open({ verbose: 2, logger: (line) => lines.push(line) });
  return {
    client,
    /** What each capture since the last call waited for. */
    waits: () =>
      lines
        .splice(0)
        .filter((l) => l.category === "snapshot" && l.message === "captured")
        .map((l) => l.auxiliary?.waitedFor),
  };
}

/** Generous margins: these check what is promised (no hold-up), never how fast it is. */
async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

describe("settling before a capture", () => {
  it("waits for content that arrives from the network after load", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/late.html"));
    const { pageText } = await client.extract();
    expect(pageText).toContain("Late content: slow answer");
  });

  it("is not held by a DOM that changes forever (default domSettleTimeout of 30 s)", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/mutating.html"));
    const { value, ms } = await timed(client.extract());
    expect(value.pageText).toContain("Stable content");
    expect(value.pageText).toMatch(/\[\d+\] button "Stable button"/);
    expect(ms).toBeLessThan(10_000);
  });

  it("is not held by a pending long-poll or an open websocket", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("outline/longpoll.html"));
    // The websocket is really open, the long-poll really pending.
    expect(await page.evaluate("new Promise((r) => setTimeout(() => r(ws.readyState), 200))")).toBe(
      1,
    );
    const { value, ms } = await timed(client.extract());
    expect(value.pageText).toContain("Waiting for news");
    expect(ms).toBeLessThan(15_000);
  });

  it("captures at domSettleTimeout when the network never goes idle", async () => {
    const client = await clients.open({ domSettleTimeout: 1_500 });
    await client.context.activePage()!.goto(server.url("outline/busy.html"));
    const { value, ms } = await timed(client.extract());
    expect(value.pageText).toContain("Busy page");
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(ms).toBeLessThan(10_000);
  });

  it("waits for an XHR, a late script and a fetch from the load handler, not for an image or a font", async () => {
    const client = await clients.open();
    const began = Date.now();
    await client.context.activePage()!.goto(server.url("outline/delays.html"));
    const { value, ms } = await timed(client.extract());
    const finished = Date.now();
    expect(value.pageText).toContain("XHR content arrived");
    expect(value.pageText).toContain("Script content arrived");
    expect(value.pageText).toContain("Fetch from the load handler arrived");
    // The image and the font are still on their way; what the outline says of them is there.
    expect(value.pageText).toContain('img "Late image"');
    expect(value.pageText).toContain("Text in a late font");
    for (const type of ["img", "font"]) {
      const sent = delayedSent.get(type) ?? [];
      expect(sent.filter((at) => at >= began && at <= finished)).toEqual([]);
    }
    // Not held until a pending request counts as a long-poll (what an image used to cost).
    expect(ms).toBeLessThan(LONG_REQUEST_MS);
  });

  it("does not wait for an image or a font in the markup after domcontentloaded", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("outline/delays-markup.html"), { waitUntil: "domcontentloaded" });
    const { value, ms } = await timed(client.extract());
    expect(value.pageText).toContain('img "Slow picture"');
    expect(value.pageText).toContain("Words that are there at once");
    expect(ms).toBeLessThan(LONG_REQUEST_MS);
  });

  it("captures a page at rest at once: right after load, and right after a click's own change", async () => {
    const { client, waits } = await openWatchingSettle();
    const page = client.context.activePage()!;
    await page.goto(server.url("outline/clicks.html"));
    await client.extract();
    expect(waits()).toEqual([[]]);
    await page.deepLocator("xpath=/html/body/button[1]").click();
    const { pageText } = await client.extract();
    expect(pageText).toContain("Added at once");
    // One rendered frame for what the click may have scheduled; nothing else moved.
    expect(waits()).toEqual([["a frame after an action"]]);
  });

  it("waits for a DOM that is still changing after load", async () => {
    const { client, waits } = await openWatchingSettle();
    const page = client.context.activePage()!;
    await page.goto(server.url("outline/growing.html"));
    await page.playwrightPage.waitForSelector("#item-1");
    const { pageText } = await client.extract();
    expect(pageText).toContain("Item 12");
    expect(waits()[0]).toContain("the DOM");
  });

  it("after a click, sees what a zero-delay timer adds and waits for a change still going on", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("outline/clicks.html"));
    await page.deepLocator("xpath=/html/body/button[2]").click();
    expect((await client.extract()).pageText).toContain("Added by a timer");
    await page.deepLocator("xpath=/html/body/button[3]").click();
    expect((await client.extract()).pageText).toContain("Item 10 of ten");
  });

  it("is not hung by alert(), confirm() and prompt() during load", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("alert.html"));
    const { pageText } = await client.extract({ timeout: 15_000 });
    expect(pageText).toContain("loaded after dialogs");
  });
});
