/**
 * What the sandbox must leave working: Playwright's `connectOverCDP` on a session's
 * `connectUrl`, as a client would use it: screenshots, network interception (a request
 * fulfilled by the client), files set from a buffer (not a host path), tracing into the
 * client (Playwright's trace and Chromium's), and a download, which lands in the session's
 * folder. Elsewhere, not repeated here: the Stagehand 3.7 client through the service
 * (test/service/v3client.test.ts), the page API over the proxy (the "remote" project:
 * test/browser/pages.test.ts, deepLocator.test.ts), a wrong token and the egress rule over
 * connectOverCDP (test/service/platform.test.ts).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserFolderOf,
  type CdpSession,
  cdpSession,
  secretValue,
} from "../../support/sandbox.js";
import { useService } from "../../support/service.js";
import { useStaticServer } from "../../support/staticServer.js";

const service = useService();
const server = useStaticServer();
let scratch = "";
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "wayfarer-client-"));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** A session and Playwright connected over its connectUrl, on a page at basic.html. */
async function playwrightOn(run: (page: Page, browser: Browser, s: CdpSession) => Promise<void>) {
  const s = await cdpSession(service);
  const browser = await chromium.connectOverCDP(await s.newConnectUrl(), { timeout: 15_000 });
  try {
    const page = await browser.contexts()[0]!.newPage();
    await page.goto(server.url("basic.html"));
    await run(page, browser, s);
  } finally {
    await browser.close().catch(() => {});
    await s.end();
  }
}

describe("Playwright's connectOverCDP through the sandbox", () => {
  it("takes a screenshot, fulfils a request itself, and sets a file input from a buffer", async () => {
    await playwrightOn(async (page) => {
      const png = await page.screenshot();
      expect(png.subarray(1, 4).toString()).toBe("PNG");

      await page.route("**/from-the-client.json", (route) =>
        route.fulfill({ json: { answeredBy: "the client" } }),
      );
      const fetched = await page.evaluate(() =>
        fetch("/from-the-client.json").then((r) => r.json()),
      );
      expect(fetched).toEqual({ answeredBy: "the client" });

      await page.setContent('<input type="file" id="f">');
      await page.setInputFiles("#f", {
        name: "note.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("written by the client"),
      });
      const read = await page.evaluate(() =>
        (document.getElementById("f") as HTMLInputElement).files![0]!.text(),
      );
      expect(read).toBe("written by the client");
    });
  });

  it("traces into the client: Playwright's trace and Chromium's", async () => {
    await playwrightOn(async (page, browser) => {
      const context = page.context();
      await context.tracing.start({ screenshots: true, snapshots: true });
      await page.goto(server.url("basic.html"));
      const tracePath = join(scratch, "trace.zip");
      await context.tracing.stop({ path: tracePath });
      expect((await readFile(tracePath)).subarray(0, 2).toString()).toBe("PK");

      const chromiumTrace = join(scratch, "chromium-trace.json");
      await browser.startTracing(page, { path: chromiumTrace });
      await page.reload();
      await browser.stopTracing();
      const trace = JSON.parse(await readFile(chromiumTrace, "utf8")) as { traceEvents: unknown[] };
      expect(trace.traceEvents.length).toBeGreaterThan(0);
    });
  });

  it("gets a download event, and the file lands in the session's downloads folder", async () => {
    await playwrightOn(async (page, _browser, s) => {
      const content = secretValue("client-download");
      const [download] = await Promise.all([
        page.waitForEvent("download", { timeout: 10_000 }),
        page.evaluate((text) => {
          const a = document.createElement("a");
          a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
          a.download = "report.txt";
          document.body.append(a);
          a.click();
        }, content),
      ]);
      expect(download.suggestedFilename()).toBe("report.txt");
      const downloads = join(browserFolderOf(s.session), "downloads");
      const holding = async () => {
        const names = await readdir(downloads).catch(() => [] as string[]);
        const texts = await Promise.all(
          names.map((n) => readFile(join(downloads, n), "utf8").catch(() => "")),
        );
        return texts.filter((t) => t === content).length;
      };
      const until = Date.now() + 5_000;
      while (Date.now() < until && (await holding()) === 0) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await holding()).toBe(1);
    });
  });
});
