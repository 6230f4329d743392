/**
 * The platform routes and the CDP proxy: a session's `connectUrl` opens its browser over CDP
 * with a token of that session (never the API key), a wrong token is refused, the connection
 * dies with the session, and what the browser loads through it is under the service's rule.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failure } from "../support/failure.js";
import { waitUntilGone } from "../support/processes.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const service = useService();

/** A site on 127.0.0.2, which the service's rule (127.0.0.1 only) does not let through. */
const seen: string[] = [];
const other = createServer((req, res) => {
  seen.push(req.url ?? "");
  res.end("reached");
});
beforeAll(() => new Promise<void>((done) => other.listen(0, "127.0.0.2", () => done())));
afterAll(() => new Promise((done) => other.close(done)));

async function session(): Promise<string> {
  const started = await service.call("POST", "/v1/sessions/start", { body: {} });
  const id = started.body.data.sessionId as string;
  await service.call("POST", `/v1/sessions/${id}/navigate`, {
    body: { url: server.url("basic.html"), options: {} },
  });
  return id;
}

describe("the platform routes and the CDP proxy", () => {
  it("connectUrl opens the session's browser; a wrong token does not; it dies with the session", async () => {
    const id = await session();
    const info = await service.call("GET", `/v1/sessions/${id}`);
    expect(info.body).toMatchObject({ id, status: "RUNNING", projectId: "alpha" });
    const connectUrl = info.body.connectUrl as string;
    expect(connectUrl).toMatch(
      new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/v1/sessions/${id}/cdp\\?token=[\\w-]{40,}$`),
    );
    expect(connectUrl).not.toContain(KEYS.alpha);
    const browser = await chromium.connectOverCDP(connectUrl);
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      expect(page.url()).toBe(server.url("basic.html"));
      // What the browser loads through the connection is under the service's rule.
      const port = (other.address() as AddressInfo).port;
      const response = await page.goto(`http://127.0.0.2:${port}/over-cdp`);
      expect(response?.status()).toBe(403);
      expect(seen).toEqual([]);
      const wrong = connectUrl.replace(/token=.*/, "token=not-a-token");
      expect(await failure(chromium.connectOverCDP(wrong, { timeout: 5_000 }))).toBeInstanceOf(
        Error,
      );
      const debug = await service.call("GET", `/v1/sessions/${id}/debug`);
      expect(debug.body.pages[0]).toMatchObject({ url: expect.stringContaining("127.0.0.2") });
      expect(debug.body.wsUrl).toMatch(/\/cdp\?token=/);
      const closed = new Promise<void>((done) => browser.on("disconnected", () => done()));
      const released = await service.call("POST", `/v1/sessions/${id}`, {
        body: { status: "REQUEST_RELEASE" },
      });
      expect(released.body).toEqual({ id, status: "COMPLETED" });
      await closed;
      expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(404);
      expect(await failure(chromium.connectOverCDP(connectUrl, { timeout: 5_000 }))).toBeInstanceOf(
        Error,
      );
    } finally {
      await browser.close().catch(() => {});
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("honours the session-create fields a local browser can (timeout, keepAlive, userMetadata) and accepts the rest", async () => {
    const started = await service.call("POST", "/v1/sessions/start", {
      body: {
        browserbaseSessionCreateParams: {
          timeout: 2,
          keepAlive: true,
          userMetadata: { team: "tea" },
          browserSettings: { viewport: { width: 900, height: 700 }, blockAds: true },
          region: "eu-central-1",
        },
      },
    });
    expect(started.status).toBe(200);
    const id = started.body.data.sessionId as string;
    const info = await service.call("GET", `/v1/sessions/${id}`);
    expect(info.body).toMatchObject({ keepAlive: true, userMetadata: { team: "tea" } });
    // The rest is said in the session's log (read here through its dashboard).
    const view = new URL(started.body.data.sessionUrl as string);
    const state = await fetch(`${view.origin}${view.pathname}/state`, {
      headers: { "x-wf-view-token": view.hash.replace("#token=", "") },
    }).then((r) => r.json() as Promise<{ log: { lines: { message: string }[] } }>);
    expect(state.log.lines.map((l) => l.message)).toContain(
      "accepted and ignored (a local browser has no use for them): region, browserSettings.blockAds",
    );
    const size = await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} });
    expect(size.status).toBe(200);
    const pid = service.service.sessions.browserPidOf(id);
    // Two seconds, then the session is gone with its browser.
    await new Promise((r) => setTimeout(r, 2_600));
    expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect(await waitUntilGone(pid!)).toEqual([]);
  });

  it("answers another project's session as unknown on every platform route", async () => {
    const id = await session();
    try {
      for (const [method, path] of [
        ["GET", `/v1/sessions/${id}`],
        ["GET", `/v1/sessions/${id}/debug`],
      ] as const) {
        expect((await service.call(method, path, { key: KEYS.beta })).status).toBe(404);
      }
      const release = await service.call("POST", `/v1/sessions/${id}`, {
        key: KEYS.beta,
        body: { status: "REQUEST_RELEASE" },
      });
      expect(release.status).toBe(404);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});
