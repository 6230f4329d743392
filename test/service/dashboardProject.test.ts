/**
 * The project view: a key holder mints a link (`POST /v1/dashboard/link`) that lists the
 * project's live sessions in a real browser, each linked to its own dashboard. The token rides
 * in the fragment, never the key; it lists only its project's sessions, opens nothing else
 * (read-only), cannot be rewritten to another project, and stops working when it expires.
 */
import Fastify from "fastify";
import { type Browser, chromium } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { dashboardRoutes } from "../../lib/service/routes/dashboard.js";
import type { Sessions } from "../../lib/service/sessions.js";
import { startOwnBrowser } from "../support/browserProcess.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
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

const started: string[] = [];
async function start(key: string): Promise<string> {
  const answer = await service.call("POST", "/v1/sessions/start", { body: {}, key });
  const id = answer.body.data.sessionId as string;
  started.push(id);
  return id;
}
afterEach(async () => {
  for (const id of started.splice(0)) {
    for (const key of [KEYS.alpha, KEYS.beta]) {
      await service.call("POST", `/v1/sessions/${id}/end`, { key });
    }
  }
});

async function mint(key: string, body: unknown = {}) {
  return service.call("POST", "/v1/dashboard/link", { key, body });
}
const tokenOf = (url: string) => new URL(url).hash.replace("#token=", "");
const list = (token: string, init: RequestInit = {}) =>
  fetch(`${service.url}/dashboard/sessions`, {
    ...init,
    headers: { "x-wf-view-token": token, ...init.headers },
  });

describe("the project view", () => {
  it("lists the key holder's live sessions in a browser, each opening its own dashboard", async () => {
    const mine = [await start(KEYS.alpha), await start(KEYS.alpha)];
    const theirs = await start(KEYS.beta);
    await service.call("POST", `/v1/sessions/${mine[0]}/navigate`, {
      body: { url: server.url("outline/shop.html") },
    });
    const minted = await mint(KEYS.alpha);
    expect(minted.status).toBe(200);
    const { url, expiresAt } = minted.body.data as { url: string; expiresAt: string };
    expect(url).toMatch(new RegExp(`^${service.url}/dashboard#token=[\\w.-]{40,}$`));
    expect(url).not.toContain(KEYS.alpha);
    // An hour unless asked otherwise.
    const hours = (Date.parse(expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(0.9);
    expect(hours).toBeLessThanOrEqual(1);

    await withViewer(async (browser) => {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(url);
      const rows = page.locator("#sessions tr");
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
      expect(page.url()).toBe(`${service.url}/dashboard`);
      expect(await page.locator("#project").textContent()).toBe("alpha");
      const ids = await rows.locator("a").allTextContents();
      expect(new Set(ids)).toEqual(new Set(mine));
      expect(ids).not.toContain(theirs);
      const shop = rows.filter({ hasText: mine[0]! });
      expect(await shop.locator("td.url").textContent()).toBe(server.url("outline/shop.html"));
      expect(await shop.locator("td").nth(2).textContent()).toBe("idle");

      // A row opens that session's own dashboard, to its own token.
      await shop.locator("a").click();
      await page.waitForURL(`${service.url}/dashboard/${mine[0]}`);
      await expect
        .poll(() => page.locator("#url").textContent(), { timeout: 10_000 })
        .toContain("shop.html");
      expect(await page.locator("#status").textContent()).toBe("idle");
    });
  });

  it("shows each project only its own sessions; a token rewritten to another project opens nothing", async () => {
    const alpha = await start(KEYS.alpha);
    const beta = await start(KEYS.beta);
    const alphaToken = tokenOf((await mint(KEYS.alpha)).body.data.url);
    const betaToken = tokenOf((await mint(KEYS.beta)).body.data.url);
    const ids = async (token: string) => {
      const answer = await list(token);
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { project: string; sessions: { id: string }[] };
      return { project: body.project, ids: body.sessions.map((s) => s.id) };
    };
    const a = await ids(alphaToken);
    expect(a.project).toBe("alpha");
    expect(a.ids).toContain(alpha);
    expect(a.ids).not.toContain(beta);
    const b = await ids(betaToken);
    expect(b.project).toBe("beta");
    expect(b.ids).toContain(beta);
    expect(b.ids).not.toContain(alpha);

    // Alpha's signature over claims naming beta: refused.
    const [claims, signature] = alphaToken.split(".");
    const read = JSON.parse(Buffer.from(claims!, "base64url").toString()) as { p: string };
    expect(read.p).toBe("alpha");
    const rewritten = Buffer.from(JSON.stringify({ ...read, p: "beta" })).toString("base64url");
    for (const forged of [`${rewritten}.${signature}`, `${claims}.${"A".repeat(43)}`, "x", ""]) {
      const answer = await list(forged);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { message: string }).message).toBe(
        "Nothing to show: the link is not valid.",
      );
    }
  });

  it("is read-only: the token is no API key and opens no session's own view", async () => {
    const id = await start(KEYS.alpha);
    const token = tokenOf((await mint(KEYS.alpha)).body.data.url);
    for (const [method, path] of [
      ["GET", `/v1/sessions/${id}`],
      ["POST", `/v1/sessions/${id}/end`],
      ["POST", "/v1/dashboard/link"],
    ] as const) {
      const body = method === "POST" ? {} : undefined;
      const answer = await service.call(method, path, { key: token, body });
      expect(answer.status, path).toBe(401);
    }
    expect(service.service.sessions.find(id)).toBeDefined();
    const state = await fetch(`${service.url}/dashboard/${id}/state`, {
      headers: { "x-wf-view-token": token },
    });
    expect(state.status).toBe(404);
    // The list answers GET only: any other method is no route of the view, so it needs a key.
    for (const method of ["POST", "DELETE", "PUT"]) {
      const answer = await list(token, { method });
      expect(answer.status, method).toBe(401);
    }
    // And the key is never taken in its place.
    expect((await list(KEYS.alpha)).status).toBe(404);
  });

  it("stops working when it expires, and says so in the browser", async () => {
    const minted = await mint(KEYS.alpha, { expiresInSeconds: 1 });
    const { url } = minted.body.data as { url: string };
    await expect
      .poll(async () => (await list(tokenOf(url))).status, { timeout: 10_000, interval: 250 })
      .toBe(404);
    const answer = (await (await list(tokenOf(url))).json()) as { message: string };
    expect(answer.message).toMatch(
      /^This link expired at \d{4}-\d\d-\d\dT[\d:.]+Z: its key holder can make a new one \(POST \/v1\/dashboard\/link\)\.$/,
    );
    await withViewer(async (browser) => {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(url);
      await expect
        .poll(() => page.locator("#nothing").textContent(), { timeout: 10_000 })
        .toBe(answer.message);
      expect(await page.locator("#view").isVisible()).toBe(false);
    });
  });

  it("mints only for a key, and names what it expects of its body", async () => {
    expect((await mint(null as unknown as string)).status).toBe(401);
    for (const expiresInSeconds of [0, 86_401, 1.5, "3600"]) {
      const refused = await mint(KEYS.alpha, { expiresInSeconds });
      expect(refused.status, String(expiresInSeconds)).toBe(400);
      expect(refused.body.message).toContain("expiresInSeconds");
    }
    const day = await mint(KEYS.alpha, { expiresInSeconds: 86_400 });
    expect(day.status).toBe(200);
  });

  it("is not offered in shared mode, where it would list one instance's sessions", async () => {
    const app = Fastify();
    app.addHook("onRequest", async (request) => {
      request.project = "alpha";
    });
    await app.register(dashboardRoutes({ sessions: {} as Sessions, shared: true }));
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const answer = await fetch(`${url}/v1/dashboard/link`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(answer.status).toBe(501);
      expect(((await answer.json()) as { message: string }).message).toContain("REDIS_URL");
    } finally {
      await app.close();
    }
  });
});
