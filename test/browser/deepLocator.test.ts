import { describe, expect, it } from "vitest";
import type { Client } from "../../lib/index.js";
import {
  ContentFrameNotFoundError,
  ServiceError,
  ServiceTimeoutError,
  ServiceValidationError,
  XPathResolutionError,
} from "../../lib/index.js";
import { ENGINE, useClients } from "../support/clients.js";
import { useBrowserProfile } from "../support/env.js";
import { failure } from "../support/failure.js";
import { liveGroupMembers } from "../support/processes.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

/** Iframe targets the browser reports over CDP: out-of-process frames have their own. */
async function iframeTargets(client: Client): Promise<string[]> {
  const page = client.context.activePage()!.playwrightPage;
  const session = await page.context().browser()!.newBrowserCDPSession();
  const { targetInfos } = await session.send("Target.getTargets");
  await session.detach();
  return targetInfos.filter((t) => t.type === "iframe").map((t) => t.url);
}

const crossFrame = "xpath=/html/body/iframe[2]/html/body/button";
const sameFrame = "/html/body/iframe[1]/html/body/button";

for (const profile of ["local", "serverless"] as const) {
  describe(`${profile} profile`, () => {
    useBrowserProfile(profile);

    async function openFrames(): Promise<Client> {
      const client = await clients.open();
      const page = client.context.activePage()!;
      await page.goto(`${server.url("frames.html")}?other=${encodeURIComponent(server.otherSite)}`);
      await page.playwrightPage.frameLocator("#cross").locator("#inner").waitFor();
      return client;
    }

    // The process model is the launching side's: under REMOTE, the service's browser.
    it.skipIf(ENGINE === "remote")(
      "puts the cross-site frame in its own process only in the local profile",
      async () => {
        const client = await openFrames();
        const targets = await iframeTargets(client);
        const processes = liveGroupMembers(client.browserPid!).length;
        if (profile === "local") {
          expect(targets).toEqual([`${server.otherSite}/frame-child.html`]);
          expect(processes).toBeGreaterThan(2);
        } else {
          expect(targets).toEqual([]);
          // --single-process: the browser, its renderers and its GPU are one process.
          expect(processes).toBe(1);
        }
      },
    );

    it("clicks inside a cross-site iframe by XPath through the iframe and by CSS with >>", async () => {
      const client = await openFrames();
      const page = client.context.activePage()!;
      await page.click(crossFrame);
      // Input to an out-of-process frame is routed through the browser: the handler may run
      // just after click() returns.
      await expect
        .poll(() => page.deepLocator("#cross >> #inner").textContent(), { timeout: 5_000 })
        .toBe(`inner clicked at ${new URL(server.otherSite).host}`);
      await page.type("iframe#cross >> #field", "typed across sites");
      expect(await page.deepLocator(`${crossFrame.replace("button", "input")}`).inputValue()).toBe(
        "typed across sites",
      );
    });

    it("clicks inside a same-origin iframe", async () => {
      const client = await openFrames();
      const page = client.context.activePage()!;
      await page.click(sameFrame);
      expect(await page.deepLocator("#same >> #inner").textContent()).toBe(
        `inner clicked at ${new URL(server.origin).host}`,
      );
    });

    it("reaches a closed shadow root inside a cross-site iframe", async () => {
      const client = await openFrames();
      const page = client.context.activePage()!;
      await page.click("/html/body/iframe[2]/html/body/closed-in-frame//button");
      const frame = page.playwrightPage.frames().find((f) => f.url().startsWith(server.otherSite))!;
      expect(
        await frame.evaluate(() =>
          (window as unknown as { readFrameShadow(): string }).readFrameShadow(),
        ),
      ).toBe("frame shadow clicked");
    });
  });
}

describe("shadow roots", () => {
  async function openShadow(): Promise<Client> {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("shadow.html"));
    return client;
  }

  it("crosses an open shadow root at //, with positions and predicates on the first step", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    await page.click("/html/body/open-host//div[1]/button");
    const text = (selector: string) => page.deepLocator(selector).textContent();
    expect(await text("/html/body/open-host//div[1]/button")).toBe("open clicked");
    expect(await text("/html/body/open-host//div[last()]/button")).toBe("Second");
    expect(await text("/html/body/open-host//*[@class='row'][2]/button")).toBe("Second");
    expect(await page.deepLocator("/html/body/open-host//div[@class='row']/button").count()).toBe(
      2,
    );
  });

  it("crosses closed shadow roots, nested, and a declarative closed root", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    await page.click("/html/body/closed-host//section/button");
    await page.click("xpath=/html/body/closed-host//section/nested-host//span/button");
    await page.click("/html/body/div//button");
    const read = (name: string) =>
      page.evaluate((n) => (window as unknown as Record<string, () => string>)[n]!(), name);
    expect(await read("readClosed")).toBe("closed clicked");
    expect(await read("readNested")).toBe("nested clicked");
    expect(await page.deepLocator("/html/body/div//button").textContent()).toBe("declared clicked");
  });

  it("evaluates a selector as plain XPath first: // is a descendant step when that matches", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    // "//closed-host" is a plain descendant step: it matches without crossing any shadow root.
    expect(await page.deepLocator("/html/body//closed-host").count()).toBe(1);
  });

  it("waits while a host has no shadow root, and says so when time runs out", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    expect(await page.deepLocator("/html/body/h1-missing//x").count()).toBe(0);
    // An <input> has a user-agent shadow root: that one is not the page's to cross.
    const error = await failure(page.click("/html/body/input//x", { timeout: 400 }));
    expect(error).toBeInstanceOf(ServiceTimeoutError);
    expect(error.message).toContain("(last try: xpath=/html/body/input has no shadow root)");
  });

  it("reads an ordinary // path that matches nothing yet as 'not yet', and waits for it", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    await page.evaluate(() => {
      setTimeout(() => {
        const late = document.createElement("div");
        late.innerHTML = "<p><button onclick=\"this.textContent='late clicked'\">Late</button></p>";
        document.body.append(late);
      }, 300);
    });
    await page.click("/html/body/div[2]//button", { timeout: 5_000 });
    expect(await page.deepLocator("/html/body/div[2]//button").textContent()).toBe("late clicked");
  });

  it("clicks an element that is re-rendered as the pointer reaches it", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    await page.evaluate(() => {
      const make = (replaceOnHover: boolean) => {
        const b = document.createElement("button");
        b.id = "flaky";
        b.textContent = "Flaky";
        b.onclick = () => {
          b.textContent = "flaky clicked";
        };
        // Like a framework re-render: the element under the pointer is swapped for a new one.
        if (replaceOnHover) b.onmouseover = () => b.replaceWith(make(false));
        return b;
      };
      document.body.prepend(make(true));
    });
    await page.click("#flaky", { timeout: 10_000 });
    expect(await page.deepLocator("#flaky").textContent()).toBe("flaky clicked");
  });

  it("keeps waiting through a navigation instead of failing", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    const click = page.click("#go", { timeout: 10_000 });
    await page.evaluate((url) => {
      setTimeout(() => {
        location.href = url;
      }, 100);
    }, server.url("basic.html"));
    await click;
    expect(page.url()).toBe(server.url("basic.html"));
  });

  it("says when a frame hop is not a frame", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    const error = await failure(page.click("closed-host >> button", { timeout: 2_000 }));
    expect(error).toBeInstanceOf(ContentFrameNotFoundError);
  });

  it("refuses bad locator input: a timeout of 0, unknown options, a non-string value", async () => {
    const client = await openShadow();
    const locator = client.context.activePage()!.deepLocator("#plain");
    expect(await failure(locator.click({ timeout: 0 }))).toBeInstanceOf(ServiceValidationError);
    const unknown = await failure(locator.click({ force: true } as never));
    expect(unknown.message).toContain('deepLocator("#plain").click.options');
    expect((await failure(locator.fill(42 as never))).message).toContain("fill.value");
    expect((await failure(locator.type(null as never))).message).toContain("type.text");
  });

  it("refuses an invalid XPath with XPathResolutionError", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    const error = await failure(page.deepLocator("/html/body/[[").click({ timeout: 500 }));
    expect(error).toBeInstanceOf(XPathResolutionError);
  });

  it("fails in one readable line when Playwright refuses the action: no escape codes, no call log", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    const error = await failure(page.deepLocator("xpath=/html/body").fill("x", { timeout: 2_000 }));
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.message).toMatch(/^deepLocator\("xpath=\/html\/body"\)\.fill: .*not an <input>/);
    expect(error.message).not.toContain("\u001b");
    expect(error.message).not.toContain("Call log");
    expect(error.message).not.toContain("\n");
    // Playwright's own error, call log and all, stays reachable as the cause.
    expect(String((error.cause as Error).message)).toContain("Call log");
  });

  it("requires exactly one match before acting", async () => {
    const client = await openShadow();
    const page = client.context.activePage()!;
    const error = await failure(page.click("/html/body/*", { timeout: 500 }));
    expect(String(error.message)).toMatch(
      /matches \d+ elements; a selector must match exactly one/,
    );
  });
});
