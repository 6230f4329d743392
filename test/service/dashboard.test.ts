/**
 * The live dashboard in a real browser: the link `/start` and `/debug` hand out opens a page
 * that shows the session (its page, a picture, the operations with timings and tokens, the log),
 * takes its token out of the address bar, updates while an act runs (what it was asked, the
 * model it waits for), and shows nothing for a wrong token or an ended session. The view token
 * opens nothing else. (What operations answered, an agent's steps, the enlarged picture and the
 * folded log: dashboardOperations.test.ts; the project's list: dashboardProject.test.ts.)
 */
import { http } from "msw";
import { type Browser, chromium, type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startOwnBrowser } from "../support/browserProcess.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

/** A browser of the test's own for the viewer's pages, stopped when `look` is done. */
async function withViewer(look: (browser: Browser) => Promise<void>): Promise<void> {
  const viewer = await startOwnBrowser();
  const browser = await chromium.connectOverCDP(viewer.wsEndpoint);
  try {
    await look(browser);
  } finally {
    await browser.close();
    await viewer.stop();
  }
}

const text = (page: Page, id: string) => page.locator(`#${id}`).textContent();

/** Holds every model request until `open()` is called. */
function gatedModel() {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let asked = 0;
  model.use(
    http.post("https://api.openai.com/v1/*", async () => {
      asked++;
      await gate;
      return undefined as unknown as Response;
    }),
    shopModel(),
  );
  return { open, asked: () => asked };
}

describe("the live dashboard", () => {
  it("shows the session as it runs, to its link's token only", async () => {
    const started = await service.call("POST", "/v1/sessions/start", {
      body: { modelName: "openai/gpt-4.1-mini", verbose: 2 },
      headers: { "x-model-api-key": "sk-dashboard-key-123456" },
    });
    const { sessionId: id, sessionUrl } = started.body.data as {
      sessionId: string;
      sessionUrl: string;
    };
    expect(sessionUrl).toMatch(new RegExp(`^${service.url}/dashboard/${id}#token=[\\w-]{40,}$`));
    expect(sessionUrl).not.toContain(KEYS.alpha);
    const debug = await service.call("GET", `/v1/sessions/${id}/debug`);
    expect(debug.body.debuggerUrl).toBe(sessionUrl);
    const token = new URL(sessionUrl).hash.replace("#token=", "");
    // The view token is no API key, and the API key opens no view.
    expect((await service.call("GET", `/v1/sessions/${id}`, { key: token })).status).toBe(401);
    const byKey = await fetch(`${service.url}/dashboard/${id}/state`, {
      headers: { "x-wf-view-token": KEYS.alpha },
    });
    expect(byKey.status).toBe(404);

    await withViewer(async (browser) => {
      const page = await browser.contexts()[0]!.newPage();
      try {
        await service.call("POST", `/v1/sessions/${id}/navigate`, {
          body: { url: server.url("outline/shop.html") },
        });
        await page.goto(sessionUrl);
        await expect.poll(() => text(page, "url"), { timeout: 10_000 }).toContain("shop.html");
        expect(page.url()).toBe(`${service.url}/dashboard/${id}`);
        expect(await text(page, "status")).toBe("idle");
        await page.waitForFunction(
          () => (document.getElementById("picture") as HTMLImageElement).naturalWidth > 0,
        );

        // An act waiting on the model: the page says so, what it was asked and whom it waits
        // for, and its picture keeps coming.
        const model = gatedModel();
        const acting = service.call("POST", `/v1/sessions/${id}/act`, {
          body: { input: "add black tea to the cart" },
        });
        await expect.poll(() => text(page, "status"), { timeout: 10_000 }).toBe("running act");
        const running = page.locator("#current");
        expect(await running.locator(".asked").first().textContent()).toBe(
          "add black tea to the cart",
        );
        await running.locator("summary").click();
        await expect
          .poll(() => running.locator(".body").textContent(), { timeout: 10_000 })
          .toMatch(/Nowwaiting for openai\/gpt-4\.1-mini \(\d+ s\)/);
        const picture = () => page.locator("#picture").getAttribute("src");
        const seen = await picture();
        await expect.poll(picture, { timeout: 10_000 }).not.toBe(seen);
        expect(await text(page, "status")).toBe("running act");
        model.open();
        expect((await acting).body.data.result.success).toBe(true);

        await expect.poll(() => text(page, "status"), { timeout: 10_000 }).toBe("idle");
        const ops = page.locator("#operations > li");
        await expect.poll(() => ops.count(), { timeout: 10_000 }).toBe(2);
        const last = ops.last();
        const field = (name: string) => last.locator(`summary .${name}`).textContent();
        expect(await field("method")).toBe("act");
        expect(await field("asked")).toBe("add black tea to the cart");
        expect(await field("took")).toMatch(/^\d+ ms$/);
        expect(await field("tokens")).toBe("120 / 30");
        expect(await field("outcome")).toBe("done");
        expect(await ops.first().locator(".method").textContent()).toBe("navigate");
        // The session's log as it ran (verbose 2), without the model key.
        const log = (await text(page, "log")) ?? "";
        expect(log, log).toContain("[model] act: openai/gpt-4.1-mini answered");
        expect(log).not.toContain("sk-dashboard-key-123456");

        // A wrong token shows nothing, and its requests are refused.
        const wrong = await browser.contexts()[0]!.newPage();
        await wrong.goto(`${service.url}/dashboard/${id}#token=${"x".repeat(43)}`);
        await expect
          .poll(() => wrong.locator("#nothing").isVisible(), { timeout: 10_000 })
          .toBe(true);
        expect(await wrong.locator("#view").isVisible()).toBe(false);
        expect(await text(wrong, "url")).toBe("");
        await wrong.close();

        // Once the session ends, the link shows nothing either.
        await service.call("POST", `/v1/sessions/${id}/end`);
        await expect
          .poll(() => page.locator("#nothing").isVisible(), { timeout: 10_000 })
          .toBe(true);
      } finally {
        await page.close();
        await service.call("POST", `/v1/sessions/${id}/end`);
      }
    });
  });

  it("answers a view request with no token, or another session's, as nothing", async () => {
    const ids: string[] = [];
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const started = await service.call("POST", "/v1/sessions/start", { body: {} });
      ids.push(started.body.data.sessionId);
      urls.push(started.body.data.sessionUrl);
    }
    try {
      const tokenOf = (url: string) => new URL(url).hash.replace("#token=", "");
      const state = (id: string, token?: string) =>
        fetch(`${service.url}/dashboard/${id}/state`, {
          headers: token ? { "x-wf-view-token": token } : {},
        });
      expect((await state(ids[0]!, tokenOf(urls[0]!))).status).toBe(200);
      expect((await state(ids[0]!)).status).toBe(404);
      expect((await state(ids[0]!, tokenOf(urls[1]!))).status).toBe(404);
      const picture = await fetch(`${service.url}/dashboard/${ids[1]}/picture`, {
        headers: { "x-wf-view-token": tokenOf(urls[0]!) },
      });
      expect(picture.status).toBe(404);
      const own = await fetch(`${service.url}/dashboard/${ids[1]}/picture`, {
        headers: { "x-wf-view-token": tokenOf(urls[1]!) },
      });
      expect(own.headers.get("content-type")).toBe("image/jpeg");
      // The page itself holds nothing of the session.
      const html = await (await fetch(`${service.url}/dashboard/${ids[0]}`)).text();
      expect(html).not.toContain(ids[0]);
      expect(html).not.toContain(tokenOf(urls[0]!));
    } finally {
      for (const id of ids) await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});
