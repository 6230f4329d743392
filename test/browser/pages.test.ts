import { describe, expect, it } from "vitest";
import {
  ServiceError,
  ServiceNavigationError,
  ServiceTimeoutError,
  ServiceValidationError,
} from "../../lib/index.js";
import type { LogLine } from "../../lib/log.js";
import { ENGINE, useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { freePort } from "../support/ports.js";
import { useStaticServer } from "../support/staticServer.js";

declare const __name: <T>(fn: T, name: string) => T;

const server = useStaticServer();
const clients = useClients();
/** Generous: a slow CI machine opens tabs slowly; the poll ends as soon as the value is there. */
const POLL = { timeout: 15_000, interval: 50 };

describe("context", () => {
  it("has the page created on init as pages()[0], active", async () => {
    const client = await clients.open();
    const pages = client.context.pages();
    expect(pages).toHaveLength(1);
    expect(client.context.activePage()).toBe(pages[0]);
  });

  it("opens new pages, switches the active one, and forgets closed ones", async () => {
    const client = await clients.open();
    const first = client.context.pages()[0]!;
    const second = await client.context.newPage();
    expect(client.context.pages()).toEqual([first, second]);
    expect(client.context.activePage()).toBe(second);
    client.context.setActivePage(first);
    expect(client.context.activePage()).toBe(first);
    await first.close();
    expect(client.context.pages()).toEqual([second]);
    expect(client.context.activePage()).toBe(second);
    expect(() => client.context.setActivePage(first)).toThrow(/does not belong/);
  });

  it("names each page by its CDP target id (the wire's frameId), the same on every ask", async () => {
    const client = await clients.open();
    const first = client.context.pages()[0]!;
    const second = await client.context.newPage();
    for (const page of [first, second]) {
      const cdp = await page.playwrightPage.context().newCDPSession(page.playwrightPage);
      const { targetInfo } = await cdp.send("Target.getTargetInfo");
      await cdp.detach();
      expect(await page.frameId()).toBe(targetInfo.targetId);
      expect(await page.frameId()).toBe(targetInfo.targetId);
    }
    expect(await first.frameId()).not.toBe(await second.frameId());
  });

  it("tracks a popup opened by the page and makes it active", async () => {
    const client = await clients.open();
    const opener = client.context.activePage()!;
    await opener.goto(server.url("popup.html"));
    const popup = opener.playwrightPage.waitForEvent("popup");
    await opener.click("#open");
    const raw = await popup;
    await raw.waitForLoadState();
    await expect.poll(() => client.context.pages().length, POLL).toBe(2);
    const active = client.context.activePage()!;
    expect(active.playwrightPage).toBe(raw);
    expect(await active.title()).toBe("Second fixture");
    // A target=_blank link is a new tab: tracked and active too.
    client.context.setActivePage(opener);
    await opener.click("#tab");
    await expect.poll(() => client.context.pages().length, POLL).toBe(3);
    const tab = client.context.pages()[2]!;
    expect(client.context.activePage()).toBe(tab);
    await tab.playwrightPage.waitForLoadState();
    expect(tab.url()).toBe(server.url("second.html"));
  });
});

describe("dialogs", () => {
  it("dismisses an alert during load by default, logs it, and the page finishes loading", async () => {
    const lines: LogLine[] = [];
    const client = await clients.open({ verbose: 1, logger: (l) => lines.push(l) });
    const page = client.context.activePage()!;
    await page.goto(server.url("alert.html"), { timeout: 10_000 });
    expect(await page.title()).toBe("Alert fixture");
    expect(await page.evaluate(() => (window as unknown as { confirmed: boolean }).confirmed)).toBe(
      false,
    );
    expect(
      await page.evaluate(() => (window as unknown as { prompted: string | null }).prompted),
    ).toBe(null);
    const dialogLines = lines.filter((l) => l.category === "dialog");
    expect(dialogLines.map((l) => l.auxiliary?.type)).toEqual(["alert", "confirm", "prompt"]);
    expect(dialogLines[0]?.auxiliary?.message).toBe("hello during load");
  });

  it('accepts dialogs with dialogs: "accept" (a prompt gets its default value)', async () => {
    const client = await clients.open({ dialogs: "accept" });
    const page = client.context.activePage()!;
    await page.goto(server.url("alert.html"), { timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { confirmed: boolean }).confirmed)).toBe(
      true,
    );
    expect(await page.evaluate(() => (window as unknown as { prompted: string }).prompted)).toBe(
      "default name",
    );
  });

  it("hands dialogs to a handler, and dismisses what the handler leaves open", async () => {
    const seen: string[] = [];
    const client = await clients.open({
      dialogs: async (dialog) => {
        seen.push(dialog.type());
        if (dialog.type() === "prompt") await dialog.accept("typed by handler");
        // The alert and the confirm are left open on purpose.
      },
    });
    const page = client.context.activePage()!;
    await page.goto(server.url("alert.html"), { timeout: 10_000 });
    expect(seen).toEqual(["alert", "confirm", "prompt"]);
    expect(await page.evaluate(() => (window as unknown as { confirmed: boolean }).confirmed)).toBe(
      false,
    );
    expect(await page.evaluate(() => (window as unknown as { prompted: string }).prompted)).toBe(
      "typed by handler",
    );
  });
});

describe("page methods", () => {
  it("navigates, reads, goes back and forward, and records navigations in history", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    const response = await page.goto(server.url("basic.html"));
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(server.url("basic.html"));
    expect(await page.title()).toBe("Basic fixture");
    await page.goto(server.url("second.html"), { waitUntil: "domcontentloaded" });
    await page.goBack();
    expect(await page.title()).toBe("Basic fixture");
    await page.goForward();
    expect(await page.title()).toBe("Second fixture");
    await page.reload();
    expect(await page.title()).toBe("Second fixture");
    const history = await client.history;
    expect(history.map((h) => h.method)).toEqual(["navigate", "navigate"]);
    expect(history[0]).toMatchObject({
      parameters: { url: server.url("basic.html") },
      result: { url: server.url("basic.html"), status: 200 },
    });
    expect(Number.isNaN(Date.parse(history[0]!.timestamp))).toBe(false);
    expect(Object.isFrozen(history)).toBe(true);
  });

  it("clicks, types and presses keys, by CSS and by XPath", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("basic.html"));
    await page.type("/html/body/form/label/input", "wayfarer");
    await page.keyPress("Enter");
    expect(await page.locator("#out").textContent()).toBe("submitted:wayfarer");
    await page.click("xpath=/html/body/a");
    await page.playwrightPage.waitForURL(/second\.html$/);
    expect(await page.title()).toBe("Second fixture");
  });

  it("takes a viewport PNG screenshot and evaluates scripts with arguments", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("basic.html"));
    const png = await page.screenshot();
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(await page.evaluate((n: number) => n * 2, 21)).toBe(42);
  });

  it("evaluates functions rewritten by esbuild's keepNames (tsx) that call __name", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    // What tsx turns `const double = (y) => y * 2` inside a page function into.
    const rewritten = (x: number) => {
      const double = __name((y: number) => y * 2, "double");
      return double(x);
    };
    expect(await page.evaluate(rewritten, 21)).toBe(42);
  });

  it("bounds every wait: a script that never returns fails with what it waited for", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    const started = Date.now();
    const error = await failure(
      page.evaluate(() => new Promise(() => {}), undefined, { timeout: 300 }),
    );
    expect(error).toBeInstanceOf(ServiceTimeoutError);
    expect(error.message).toMatch(/^evaluate: 300 ms passed waiting for the page script to return/);
    expect(Date.now() - started).toBeLessThan(10_000);
    const missing = await failure(page.click("#nothing-here", { timeout: 300 }));
    expect(missing).toBeInstanceOf(ServiceTimeoutError);
    expect(missing.message).toContain('deepLocator("#nothing-here") to match exactly one element');
  });

  it("a failed navigation: one readable ServiceNavigationError, Playwright's text as its cause and in a debug line", async () => {
    const lines: LogLine[] = [];
    const client = await clients.open({ verbose: 2, logger: (line) => lines.push(line) });
    const page = client.context.activePage()!;
    const url = `http://127.0.0.1:${await freePort()}/`;
    const error = await failure(page.goto(url));
    expect(error).toBeInstanceOf(ServiceNavigationError);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.message).toBe(
      `goto: could not open ${url}: the connection was refused (net::ERR_CONNECTION_REFUSED). Nothing listens at that address and port: check the URL and that the server is up.`,
    );
    expect((error as ServiceNavigationError).netError).toBe("net::ERR_CONNECTION_REFUSED");
    expect((error as ServiceNavigationError).code).toBe("NAVIGATION_FAILED");
    // Under REMOTE the service's egress guard answered for the closed port: its code is the
    // cause, with no Playwright call log.
    expect(String((error.cause as Error).message)).toContain(
      ENGINE === "remote" ? "net::ERR_CONNECTION_REFUSED" : "Call log:",
    );
    // An address with a password: neither the message nor the error's url keeps it.
    const withPassword = url.replace("http://", "http://ada:pass-word-9@");
    const refused = (await failure(page.goto(withPassword))) as ServiceNavigationError;
    expect(refused.url).toBe(url);
    expect(JSON.stringify({ ...refused, message: refused.message })).not.toContain("pass-word-9");
    const debug = lines.find((l) => l.category === "page" && l.message === "goto failed");
    expect(debug?.level).toBe(2);
    expect(debug?.auxiliary?.detail).toContain(
      ENGINE === "remote" ? url : `navigating to "${url}"`,
    );
    expect(debug?.auxiliary?.detail).not.toContain("\u001b");
    // Chromium shows its error page for the refused connection; let it finish first. (Under
    // REMOTE the service's egress guard answered instead, and its page is already there.)
    if (ENGINE !== "remote") await page.playwrightPage.waitForURL(/^chrome-error:/);
    await page.playwrightPage.waitForLoadState();
    const slow = await failure(page.goto(server.url("__hang"), { timeout: 300 }));
    expect(slow).toBeInstanceOf(ServiceTimeoutError);
    expect(slow.message).toBe(
      "goto: 300 ms passed waiting for the load event. Check that the server answers, or pass a longer timeout.",
    );
  });

  it("a page script that throws, or an unknown key, fails in one readable line naming the call", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("basic.html"));
    const thrown = await failure(
      page.evaluate("(() => { throw new Error('boom in the page'); })()"),
    );
    expect(thrown).toBeInstanceOf(ServiceError);
    expect(thrown.message).toMatch(/^Evaluating JavaScript in the page failed: .*boom in the page/);
    const key = await failure(page.keyPress("NoSuchKey"));
    expect(key).toBeInstanceOf(ServiceError);
    expect(key.message).toBe('keyPress: Unknown key: "NoSuchKey"');
    for (const error of [thrown, key]) {
      expect(error.message).not.toContain("\u001b");
      expect(error.message).not.toContain("Call log");
      expect(error.message).not.toContain("\n");
      expect(error.message).not.toMatch(/\bat eval\b|UtilityScript/);
    }
  });

  it("refuses bad input naming the field", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    const bad = await failure(page.goto(server.url("basic.html"), { timeout: 0 }));
    expect(bad).toBeInstanceOf(ServiceValidationError);
    expect(bad.message).toContain("goto.options.timeout");
    const unknown = await failure(
      page.goto(server.url("basic.html"), { waitUntil: "idle" as never }),
    );
    expect(unknown.message).toContain("goto.options.waitUntil");
    expect((await failure(page.goto(42 as never))).message).toContain("goto.url");
    expect((await failure(page.screenshot({ fullpage: true } as never))).message).toContain(
      "screenshot.options",
    );
    expect((await failure(page.evaluate(42 as never))).message).toContain("evaluate.pageFunction");
    expect((await failure(client.context.newPage({ timeout: -1 }))).message).toContain(
      "newPage.options.timeout",
    );
  });
});
