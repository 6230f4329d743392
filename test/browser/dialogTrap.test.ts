/**
 * A page that raises dialogs without end (test/fixtures/attack/dialogs.html: an alert, a
 * confirm and a prompt every 10 ms) must not keep its tab: each dialog is settled and the next
 * goto leaves. Before the fix the browser refused to settle the dialog raised as a same-site
 * navigation got ready to commit (RenderDocument) and the goto waited out its whole timeout.
 */
import { describe, expect, it } from "vitest";
import { ServiceTimeoutError } from "../../lib/index.js";
import type { LogLine } from "../../lib/log.js";
import { startOwnBrowser } from "../support/browserProcess.js";
import { useClients } from "../support/clients.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

/** Resolves once the page has raised (and we have settled) `count` dialogs more. */
async function dialogsSeen(lines: LogLine[], count: number): Promise<void> {
  const from = lines.filter((l) => l.category === "dialog").length;
  await expect
    .poll(() => lines.filter((l) => l.category === "dialog").length - from, { timeout: 10_000 })
    .toBeGreaterThanOrEqual(count);
}

describe("a page that spams dialogs", () => {
  it("is left by the next goto, each time, its dialogs all settled", async () => {
    const lines: LogLine[] = [];
    const client = await clients.open({ verbose: 1, logger: (l) => lines.push(l) });
    const page = client.context.activePage()!;
    for (let round = 0; round < 4; round++) {
      await page.goto(server.url("attack/dialogs.html"), { timeout: 10_000 });
      await dialogsSeen(lines, 6);
      await page.goto(server.url("basic.html"), { timeout: 10_000 });
      expect(await page.title(), `round ${round}`).toBe("Basic fixture");
    }
    const dialogLines = lines.filter((l) => l.category === "dialog");
    expect(dialogLines.length).toBeGreaterThanOrEqual(24);
    expect(dialogLines.filter((l) => l.message.includes("left open"))).toEqual([]);
  });

  it("accepted instead: the same, a prompt answered with its default", async () => {
    const lines: LogLine[] = [];
    const client = await clients.open({
      dialogs: "accept",
      verbose: 1,
      logger: (l) => lines.push(l),
    });
    const page = client.context.activePage()!;
    await page.goto(server.url("attack/dialogs.html"), { timeout: 10_000 });
    await dialogsSeen(lines, 6);
    await page.goto(server.url("basic.html"), { timeout: 10_000 });
    expect(await page.title()).toBe("Basic fixture");
  });

  it("a browser that refuses to settle one (one not launched by Wayfarer): the goto's timeout names the dialog, not the server", async () => {
    // Launched without our switches (RenderDocument on): the trap as it was, which a caller's
    // own browser, attached by cdpUrl, may still set.
    const own = await startOwnBrowser();
    try {
      const lines: LogLine[] = [];
      const client = await clients.open({
        verbose: 1,
        logger: (l) => lines.push(l),
        localBrowserLaunchOptions: { cdpUrl: own.wsEndpoint },
      });
      const page = client.context.activePage()!;
      // The trap is a race in the browser (a dialog raised as the navigation gets ready to
      // commit): nearly every round falls into it, one in a few runs' did not. Up to three
      // rounds, and one must: what is tested is what the goto says once trapped.
      let error: Error | undefined;
      for (let round = 0; round < 3 && !error; round++) {
        await page.goto(server.url("attack/dialogs.html"), { timeout: 10_000 });
        await dialogsSeen(lines, 6);
        error = await page.goto(server.url("basic.html"), { timeout: 3_000 }).then(
          () => undefined,
          (failed: unknown) => failed as Error,
        );
      }
      expect(error).toBeInstanceOf(ServiceTimeoutError);
      expect(error!.message).toMatch(
        /^goto: 3000 ms passed waiting for the load event while the page held an? (alert|confirm|prompt) \(".*"\) open that the browser refused to settle\. The tab cannot leave that page: close it and use another\.$/,
      );
      expect(error!.message).not.toContain("server");
      expect(lines.some((l) => l.message.includes("left open: the browser refused"))).toBe(true);
      await client.close();
    } finally {
      await own.stop();
    }
  });
});
