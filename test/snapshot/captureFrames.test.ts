/**
 * A capture leaves nothing behind in the frames it walked: its stash is gone from Wayfarer's
 * world of each document, whether the walk removed it itself (nothing later needed it) or the
 * capture's clean-up did (frames to find, a scope or ignored elements marked).
 */
import { describe, expect, it } from "vitest";
import { isolatedWorld, ownSession } from "../../lib/browser/frameSessions.js";
import type { Client } from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { snapshotOf } from "../support/outline.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

/** The capture stashes left in Wayfarer's world of each frame (all rendered by the page's process). */
async function stashesLeft(client: Client): Promise<string[]> {
  const page = client.context.activePage()!.playwrightPage;
  const owner = (await ownSession(page, page.mainFrame()))!;
  const ids: string[] = [];
  type Tree = { frame: { id: string }; childFrames?: Tree[] };
  const collect = (tree: Tree) => {
    ids.push(tree.frame.id);
    for (const child of tree.childFrames ?? []) collect(child);
  };
  collect((await owner.session.send("Page.getFrameTree")).frameTree);
  const left: string[] = [];
  for (const id of ids) {
    const { result } = await owner.session.send("Runtime.evaluate", {
      expression: `Object.getOwnPropertyNames(globalThis).filter((k) => k.startsWith("__wayfarer_"))`,
      contextId: await isolatedWorld(owner, id),
      returnByValue: true,
    });
    left.push(...(result.value as string[]));
  }
  expect(ids.length).toBe(page.frames().length);
  return left;
}

async function open(path: string): Promise<Client> {
  const client = await clients.open();
  await client.context.activePage()!.goto(server.url(path));
  return client;
}

describe("what a capture leaves in the page", () => {
  it("leaves no stash on a page without frames", async () => {
    const client = await open("outline/shop.html");
    const snapshot = await snapshotOf(client);
    expect(snapshot.text).toContain("Cart: empty");
    expect(await stashesLeft(client)).toEqual([]);
  });

  it("leaves no stash in any frame of a page with same-origin frames", async () => {
    const client = await open("outline/frames-same.html");
    const snapshot = await snapshotOf(client);
    expect(snapshot.text).toContain("iframe");
    expect(await stashesLeft(client)).toEqual([]);
  });

  it("leaves no stash after a scoped capture, nor after one leaving elements out", async () => {
    const client = await open("outline/shop.html");
    const scoped = await snapshotOf(client, { selector: "//ul" });
    expect(scoped.text).toContain("Green tea");
    expect(scoped.text).not.toContain("Cart:");
    const pruned = await snapshotOf(client, { ignoreSelectors: ["//ul"] });
    expect(pruned.text).toContain("Cart: empty");
    expect(pruned.text).not.toContain("Green tea");
    expect(await stashesLeft(client)).toEqual([]);
  });

  it("walks each new document, also after a navigation to another site (another renderer)", async () => {
    const client = await open("outline/shop.html");
    const page = client.context.activePage()!;
    expect((await snapshotOf(client)).text).toContain("Cart: empty");
    expect((await snapshotOf(client)).text).toContain("Cart: empty");
    await page.goto(`${server.otherSite}/outline/form.html`);
    const other = await snapshotOf(client);
    expect(other.text).toContain('heading "Checkout form"');
    expect(other.text).not.toContain("Cart:");
    await page.goto(server.url("outline/shop.html"));
    await page.playwrightPage.evaluate(() => {
      document.getElementById("cart")!.textContent = "Cart: white";
    });
    expect((await snapshotOf(client)).text).toContain("Cart: white");
    // A world that lost the walk (as one of a new renderer reusing a context id would lack it).
    const pw = page.playwrightPage;
    const owner = (await ownSession(pw, pw.mainFrame()))!;
    await owner.session.send("Runtime.evaluate", {
      expression: "delete globalThis.__wayfarerWalk",
      contextId: await isolatedWorld(owner, await owner.rootFrameId()),
    });
    expect((await snapshotOf(client)).text).toContain("Cart: white");
    await page.goto(`${server.otherSite}/outline/form.html`);
    expect((await snapshotOf(client)).text).toContain('heading "Checkout form"');
    expect(await stashesLeft(client)).toEqual([]);
  });

  it("cannot be fed a forged outline by the page: the walk and what it reads live in Wayfarer's world", async () => {
    const client = await open("outline/shop.html");
    expect((await snapshotOf(client)).text).toContain("Cart: empty");
    // The page plants its own walk under the walk's name, and lies through the DOM's functions
    // that its main world shares a document with.
    await client.context.activePage()!.playwrightPage.evaluate(() => {
      const forged = () => ({ text: ['button "Pay now"'], candidates: 0, frame: [], kept: false });
      Object.defineProperty(globalThis, "__wayfarerWalk", { value: forged, configurable: true });
      Object.defineProperty(Node.prototype, "nodeValue", { get: () => "Pay now" });
      Object.defineProperty(Node.prototype, "textContent", { get: () => "Pay now" });
      Element.prototype.getAttribute = () => "Pay now";
      Document.prototype.evaluate = () => {
        throw new Error("forged");
      };
    });
    for (let i = 0; i < 2; i++) {
      const snapshot = await snapshotOf(client);
      expect(snapshot.text).toContain("Cart: empty");
      expect(snapshot.text).toContain("Green tea");
      expect(snapshot.text).not.toContain("Pay now");
    }
    expect(await stashesLeft(client)).toEqual([]);
  });
});
