/**
 * How long a session lives: a connected CDP client keeps it (even silent, past the idle time);
 * without keepAlive, its last client leaving ends it after a short grace; with keepAlive it
 * stays until ended or idle; an idle session is ended with its browser. And the viewport asked
 * for at start is the one pages get.
 */
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitUntilGone } from "../support/processes.js";
import { useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const RELEASE_GRACE_MS = 1_000;
// Longer than the release grace, so a keepAlive session can outlive the grace and not the idle time.
const IDLE_MS = 3_000;
const server = useStaticServer();
const service = useService({ idleMs: IDLE_MS, releaseGraceMs: RELEASE_GRACE_MS });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(params: Record<string, unknown> = {}): Promise<string> {
  const started = await service.call("POST", "/v1/sessions/start", {
    body: { browserbaseSessionCreateParams: params },
  });
  expect(started.status).toBe(200);
  const id = started.body.data.sessionId as string;
  await service.call("POST", `/v1/sessions/${id}/navigate`, {
    body: { url: server.url("basic.html") },
  });
  return id;
}

const alive = async (id: string) => (await service.call("GET", `/v1/sessions/${id}`)).status;

async function connect(id: string) {
  const info = await service.call("GET", `/v1/sessions/${id}`);
  return chromium.connectOverCDP(info.body.connectUrl as string);
}

describe("a session's life", () => {
  it("gives pages the viewport asked for, is kept while a client is connected, and ends after its last client leaves (no keepAlive)", async () => {
    const id = await start({ browserSettings: { viewport: { width: 900, height: 700 } } });
    const pid = service.service.sessions.browserPidOf(id)!;
    const browser = await connect(id);
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([900, 700]);
      // Silent, connected, past the idle time: still there.
      await sleep(IDLE_MS + 1_500);
      expect(await alive(id)).toBe(200);
    } finally {
      await browser.close();
    }
    // Within the grace a client may come back; after it, the session is gone with its browser.
    expect(await alive(id)).toBe(200);
    await sleep(RELEASE_GRACE_MS + 1_000);
    expect(await alive(id)).toBe(404);
    expect(await waitUntilGone(pid)).toEqual([]);
  });

  it("ends nothing when a client that came by /start's cdpUrl leaves (a look in beside API calls, as the Python SDK and the reference suite do)", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    try {
      const look = await chromium.connectOverCDP(started.body.data.cdpUrl as string);
      expect(look.contexts()[0]!.pages().length).toBeGreaterThan(0);
      await look.close();
      await sleep(RELEASE_GRACE_MS + 1_000);
      expect(await alive(id)).toBe(200);
      const navigated = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: server.url("basic.html") },
      });
      expect(navigated.status).toBe(200);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("keeps a keepAlive session when its client leaves, until it is idle", async () => {
    const id = await start({ keepAlive: true });
    const pid = service.service.sessions.browserPidOf(id)!;
    const browser = await connect(id);
    await browser.close();
    const left = Date.now();
    await sleep(RELEASE_GRACE_MS + 500);
    // Operations keep it from being idle.
    expect((await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} })).status).toBe(
      200,
    );
    expect(Date.now() - left).toBeGreaterThan(RELEASE_GRACE_MS);
    // Then nothing for longer than the idle time.
    let status = 200;
    while (status === 200 && Date.now() - left < 30_000) {
      await sleep(500);
      status = await alive(id);
    }
    expect(status).toBe(404);
    expect(await waitUntilGone(pid)).toEqual([]);
  });

  it("ends a session no one uses once it is idle, and none sooner", async () => {
    const id = await start();
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 30_000) {
      await sleep(250);
      status = await alive(id);
    }
    expect(status).toBe(404);
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS);
  });
});
