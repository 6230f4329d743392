import { describe, expect, it } from "vitest";
import { type Client, ServiceDomProcessError } from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { useBrowserProfile } from "../support/env.js";
import { failure } from "../support/failure.js";
import {
  expectIdsResolve,
  expectVisibleTextIn,
  linesById,
  refsIn,
  snapshotOf,
} from "../support/outline.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

const FRAME_FILES = [
  "outline/frames-outer.html",
  "outline/frames-same.html",
  "outline/frames-cross.html",
  "outline/frames-deep.html",
  "outline/frames-deep.html",
];

/** URLs of the frames the browser runs in processes of their own. */
async function outOfProcessFrames(client: Client): Promise<string[]> {
  const session = await client.context.playwrightContext.browser()!.newBrowserCDPSession();
  const { targetInfos } = await session.send("Target.getTargets");
  await session.detach();
  return targetInfos.filter((t) => t.type === "iframe").map((t) => new URL(t.url).pathname);
}

for (const profile of ["local", "serverless"] as const) {
  describe(`frames, ${profile} profile`, () => {
    useBrowserProfile(profile);

    const outer = () =>
      `${server.url("outline/frames-outer.html")}?other=${encodeURIComponent(server.otherSite)}`;

    it("captures nested same-site and cross-site frames in place, right after goto", async () => {
      const client = await clients.open();
      await client.context.activePage()!.goto(outer());
      const snapshot = await snapshotOf(client);
      const oopifs = await outOfProcessFrames(client);
      if (profile === "local") {
        // Each cross-site frame runs in a process of its own; the cross frame's child is of
        // its parent's site and shares that process.
        expect(oopifs.sort()).toEqual(["/outline/frames-cross.html", "/outline/frames-deep.html"]);
      } else {
        expect(oopifs).toEqual([]);
      }
      expect(snapshot.text).toMatch(
        /iframe "Same site"\n {2}Same-site text\n {2}\[\d+\] button "Same button"\n {2}Open shadow text\n {2}\[\d+\] button "Shadow in frame"\n {2}iframe "Deep cross"\n {4}Deep text\n {4}\[\d+\] link "Deep link"/,
      );
      expect(snapshot.text).toMatch(
        /iframe "Cross site"\n {2}Cross-site text\n {2}\[\d+\] button "Cross button"\n {2}Closed shadow text\n {2}\[\d+\] button "Closed in frame"\n {2}iframe "Cross child"\n {4}Deep text/,
      );
      await expectIdsResolve(client, snapshot, refsIn(...FRAME_FILES));
      await expectVisibleTextIn(client, snapshot);
    });

    it("keeps an out-of-process frame's content right after any number of actions in the tab", async () => {
      const client = await clients.open();
      const page = client.context.activePage()!;
      await page.goto(outer());
      for (let n = 1; n <= 3; n++) {
        const before = await snapshotOf(client);
        const id = [...linesById(before)].find(([, l]) => l.includes('"Cross'))![0];
        await page.deepLocator(before.selectors[id]!).click();
        const after = await snapshotOf(client);
        expect(after.text).toContain(`button "Cross clicked ${n}"`);
        expect(after.text).toContain('button "Closed in frame"');
        expect(after.text.match(/Outer page/g)).toHaveLength(1);
      }
    });

    it("follows a frame that moves into and out of a process of its own", async () => {
      const client = await clients.open();
      const page = client.context.activePage()!;
      await page.goto(server.url("outline/swap.html"));
      const setSource = async (src: string) => {
        await page.evaluate(
          `new Promise((r) => { const f = document.getElementById("swap"); f.onload = r; f.src = ${JSON.stringify(src)}; })`,
        );
      };
      const cross = refsIn("outline/frames-cross.html", "outline/frames-deep.html");
      const same = refsIn("outline/frames-same.html");
      for (const [src, text, refs] of [
        [`${server.otherSite}/outline/frames-cross.html`, "Cross-site text", cross],
        [server.url("outline/frames-same.html"), "Same-site text", same],
        [`${server.otherSite}/outline/frames-cross.html`, "Cross-site text", cross],
      ] as const) {
        // A capture before the move, so that what was known about the frame is stale after it.
        await snapshotOf(client);
        await setSource(src);
        const snapshot = await snapshotOf(client);
        expect(snapshot.text).toContain(text);
        await expectIdsResolve(client, snapshot, [...refs]);
      }
    });

    it("follows a tab through reloads: 20 frames stay 20, and each capture says the same", async () => {
      const client = await clients.open();
      const page = client.context.activePage()!;
      const url = `${server.url("outline/twenty-frames.html")}?other=${encodeURIComponent(server.otherSite)}`;
      await page.goto(url);
      const first = await snapshotOf(client);
      expect(first.text.match(/^ *iframe "Frame \d+"$/gm)).toHaveLength(20);
      for (let i = 0; i < 5; i++) {
        await page.reload();
        const again = await snapshotOf(client);
        expect(page.playwrightPage.frames()).toHaveLength(21);
        expect(again.text).toBe(first.text);
        expect(again.selectors).toEqual(first.selectors);
      }
    });
  });
}

describe("frames that do not answer", () => {
  // Out of process, a frame stuck in a loop holds only its own renderer.
  useBrowserProfile("local");

  it("shows a frame stuck in a loop empty, within the call's timeout", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(
      `${server.url("outline/busy-frame.html")}?other=${encodeURIComponent(server.otherSite)}`,
    );
    // The child's loop starts 300 ms after its load.
    await new Promise((r) => setTimeout(r, 600));
    const started = Date.now();
    const { pageText } = await client.extract({ timeout: 4_000 });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(pageText.split("\n")).toEqual([
      'document "Busy frame"',
      "Parent text",
      '[1] button "Parent button"',
      'iframe "Busy"',
    ]);
  });

  it("fails at once, with the reference's error, when the page's renderer crashed", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("basic.html"));
    await page.playwrightPage.goto("chrome://crash").catch(() => {});
    const started = Date.now();
    const error = await failure(client.extract({ timeout: 20_000 }));
    expect(error).toBeInstanceOf(ServiceDomProcessError);
    expect(error.message).toContain("crashed");
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
