import { describe, expect, it } from "vitest";
import { useClients } from "../support/clients.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

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

  it("is not hung by alert(), confirm() and prompt() during load", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("alert.html"));
    const { pageText } = await client.extract({ timeout: 15_000 });
    expect(pageText).toContain("loaded after dialogs");
  });
});
