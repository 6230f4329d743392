/**
 * An outline shared within a scope (the service reads one for an operation's cache key): the
 * next call asking the same outline of the same page gets it without a walk, once, unless a frame
 * of the page navigated since; any other call, and every call outside a scope, reads the page as
 * it is then.
 */
import { describe, expect, it } from "vitest";
import {
  dropSharedSnapshot,
  pageById,
  sharingSnapshots,
  snapshotFor,
} from "../../lib/handlers/pageSnapshot.js";
import type { Client } from "../../lib/index.js";
import { Logger } from "../../lib/log.js";
import { withTimeout } from "../../lib/timeout.js";
import { useClients } from "../support/clients.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

const settings = {
  domSettleTimeout: 10_000,
  outlineTokenBudget: 12_000,
  maxChunksPerCall: 8,
  logger: new Logger({ verbose: 0, disablePino: true }),
};

async function openShop(): Promise<Client> {
  const client = await clients.open();
  await client.context.activePage()!.goto(server.url("outline/shop.html"));
  return client;
}

function outline(client: Client, options: { selector?: string } = {}) {
  return withTimeout("snapshot (test)", 30_000, "the snapshot", async (deadline) =>
    snapshotFor(await pageById(client.context, undefined), options, settings, deadline),
  );
}

/** Changes the page's words where no watcher would tell (a text node's value). */
async function setCart(client: Client, words: string) {
  await client.context.activePage()!.playwrightPage.evaluate((w) => {
    document.getElementById("cart")!.firstChild!.nodeValue = w;
  }, words);
}

describe("an outline shared within a scope", () => {
  it("goes once to the next call asking the same outline; later calls read the page", async () => {
    const client = await openShop();
    await sharingSnapshots(async () => {
      const first = await outline(client);
      await setCart(client, "Cart: green");
      const second = await outline(client);
      expect(second).toBe(first);
      expect(second.text).toContain("Cart: empty");
      const third = await outline(client);
      expect(third).not.toBe(first);
      expect(third.text).toContain("Cart: green");
      await setCart(client, "Cart: black");
      expect((await outline(client)).text).toContain("Cart: black");
    });
  });

  it("is not given to a call asking another outline, nor to any call after that one", async () => {
    const client = await openShop();
    await sharingSnapshots(async () => {
      const first = await outline(client);
      const scoped = await outline(client, { selector: "//ul" });
      expect(scoped).not.toBe(first);
      expect(scoped.text).not.toContain("Cart:");
      await setCart(client, "Cart: white");
      expect((await outline(client)).text).toContain("Cart: white");
    });
  });

  it("is never kept outside a scope, nor from one scope to the next", async () => {
    const client = await openShop();
    const first = await outline(client);
    await setCart(client, "Cart: oolong");
    const second = await outline(client);
    expect(second).not.toBe(first);
    expect(second.text).toContain("Cart: oolong");
    const inScope = await sharingSnapshots(() => outline(client));
    await setCart(client, "Cart: green");
    await sharingSnapshots(async () => {
      const again = await outline(client);
      expect(again).not.toBe(inScope);
      expect(again.text).toContain("Cart: green");
    });
  });

  it("is not given across a navigation: not after the page went to another document, nor to the same URL again", async () => {
    const client = await openShop();
    const page = client.context.activePage()!;
    await sharingSnapshots(async () => {
      const first = await outline(client);
      // As a page's own timer or a redirect would, between the key and the operation.
      await page.playwrightPage.evaluate(() => location.assign("/outline/form.html"));
      await page.playwrightPage.waitForURL(/form\.html$/);
      const next = await outline(client);
      expect(next).not.toBe(first);
      expect(next.text).toContain('heading "Checkout form"');
      expect(next.text).not.toContain("Cart:");
    });
    await page.goto(server.url("outline/shop.html"));
    await sharingSnapshots(async () => {
      const first = await outline(client);
      await page.reload();
      const next = await outline(client);
      expect(next).not.toBe(first);
      expect(next.text).toContain("Cart: empty");
    });
  });

  it("is not given once a frame of the page navigated (its ids would name another document's elements)", async () => {
    const client = await openShop();
    const pw = client.context.activePage()!.playwrightPage;
    await sharingSnapshots(async () => {
      const first = await outline(client);
      const loaded = pw.waitForEvent("framenavigated", (f) => f !== pw.mainFrame());
      await pw.evaluate(() => {
        const frame = document.createElement("iframe");
        frame.src = "/outline/form.html";
        document.body.append(frame);
      });
      await loaded;
      const next = await outline(client);
      expect(next).not.toBe(first);
    });
  });

  it("is not given to a call about another page of the same browser", async () => {
    const client = await openShop();
    const shop = client.context.activePage()!;
    const other = await client.context.newPage();
    await other.goto(server.url("outline/form.html"));
    await sharingSnapshots(async () => {
      const first = await withTimeout("snapshot (test)", 30_000, "the snapshot", (deadline) =>
        snapshotFor(shop, {}, settings, deadline),
      );
      expect(first.text).toContain("Cart: empty");
      const next = await withTimeout("snapshot (test)", 30_000, "the snapshot", (deadline) =>
        snapshotFor(other, {}, settings, deadline),
      );
      expect(next.text).toContain('heading "Checkout form"');
      expect(next.text).not.toContain("Cart:");
    });
  });

  it("goes to no one once dropped: the next call reads the page", async () => {
    const client = await openShop();
    await sharingSnapshots(async () => {
      const first = await outline(client);
      dropSharedSnapshot();
      await setCart(client, "Cart: black");
      const next = await outline(client);
      expect(next).not.toBe(first);
      expect(next.text).toContain("Cart: black");
    });
  });
});
