/**
 * v1 details other clients send as the reference reads them: an empty or null frameId names the
 * active page (the reference's own suite sends "", the Python SDK null), verbose as a string,
 * fractional numbers (domSettleTimeoutMs, options.timeout), and /end's body empty or refused.
 */
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const pages = useStaticServer();
const service = useService();

async function start(body: Record<string, unknown> = {}): Promise<string> {
  const started = await service.call("POST", "/v1/sessions/start", { body });
  expect(started.status).toBe(200);
  return started.body.data.sessionId as string;
}

describe("what other v1 clients send", () => {
  it('reads frameId "" and null as the active page on navigate and extract; a page that is not open is still refused', async () => {
    const id = await start();
    try {
      for (const frameId of ["", null]) {
        const navigated = await service.call("POST", `/v1/sessions/${id}/navigate`, {
          body: { url: pages.url("basic.html"), options: {}, frameId },
        });
        expect(navigated.status, `navigate with frameId ${JSON.stringify(frameId)}`).toBe(200);
        const extracted = await service.call("POST", `/v1/sessions/${id}/extract`, {
          body: { frameId },
        });
        expect(extracted.status, `extract with frameId ${JSON.stringify(frameId)}`).toBe(200);
        expect(JSON.stringify(extracted.body.data.result)).toContain("Basic fixture");
      }
      const unknown = await service.call("POST", `/v1/sessions/${id}/extract`, {
        body: { frameId: "NO-SUCH-FRAME" },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.name).toBe("PageNotFoundError");
      const wrongType = await service.call("POST", `/v1/sessions/${id}/extract`, {
        body: { frameId: 7 },
      });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.message).toContain("frameId");
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("acts on an Action that carries the reference's backendNodeId (the selector names the element)", async () => {
    const id = await start();
    try {
      await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: pages.url("basic.html"), options: {} },
      });
      const acted = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: {
          input: {
            selector: "xpath=/html/body/form/button",
            description: "Search button",
            method: "click",
            arguments: [],
            backendNodeId: 17,
          },
        },
      });
      expect(acted.status).toBe(200);
      expect(acted.body.data.result.success).toBe(true);
      const page = await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} });
      expect(JSON.stringify(page.body.data.result)).toContain("submitted:");
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("answers /start with cdpUrl: the session's browser through the proxy, a token of its own, never the key", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    const cdpUrl = started.body.data.cdpUrl as string;
    expect(cdpUrl).toMatch(
      new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/v1/sessions/${id}/cdp\\?token=[\\w-]{40,}$`),
    );
    expect(cdpUrl).not.toContain(KEYS.alpha);
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: pages.url("basic.html"), options: {} },
      });
      const page = browser.contexts()[0]!.pages()[0]!;
      await expect.poll(() => page.title()).toBe("Basic fixture");
    } finally {
      await browser.close();
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("answers /replay in the reference's full shape: the page's url, timestamp and duration, each call's parameters, result and times", async () => {
    const id = await start();
    try {
      const before = Date.now();
      await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: pages.url("basic.html"), options: {} },
      });
      await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} });
      const replay = await service.call("GET", `/v1/sessions/${id}/replay`);
      expect(replay.status).toBe(200);
      const [page] = replay.body.data.pages;
      expect(page.url).toBe(pages.url("basic.html"));
      expect(page.timestamp).toBeLessThanOrEqual(before);
      expect(page.duration).toBeGreaterThan(0);
      expect(page.actions.map((a: { method: string }) => a.method)).toEqual([
        "navigate",
        "extract",
      ]);
      for (const action of page.actions) {
        // Nothing a caller sent is kept: an instruction may hold a secret.
        expect(action.parameters).toEqual({});
        expect(action.result).toEqual({ success: true });
        expect(action.timestamp).toBeGreaterThanOrEqual(before);
        expect(action.endTime).toBeGreaterThanOrEqual(action.timestamp);
        expect(action.tokenUsage).toMatchObject({ inputTokens: 0, outputTokens: 0 });
      }
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it('takes verbose "0"/"1"/"2" and a fractional domSettleTimeoutMs at /start; refuses verbose "3"', async () => {
    for (const verbose of ["0", "1", "2"]) {
      const id = await start({ verbose, domSettleTimeoutMs: 1500.5 });
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
    const refused = await service.call("POST", "/v1/sessions/start", { body: { verbose: "3" } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("verbose");
  });

  it("takes a fractional options.timeout on navigate, act and extract (rounded, as the reference takes any number)", async () => {
    const id = await start();
    try {
      const timeout = { timeout: 30_000.5 };
      const navigated = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: pages.url("basic.html"), options: timeout },
      });
      expect(navigated.status).toBe(200);
      const acted = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: {
          input: {
            selector: "xpath=/html/body/form/button",
            description: "Search",
            method: "click",
          },
          options: timeout,
        },
      });
      expect(acted.status).toBe(200);
      expect(acted.body.data.result.success).toBe(true);
      const extracted = await service.call("POST", `/v1/sessions/${id}/extract`, {
        body: { options: { timeout: 1_500.25 } },
      });
      expect(extracted.status).toBe(200);
      // Still a count of milliseconds: not a number, or none left after rounding, is refused.
      const zero = await service.call("POST", `/v1/sessions/${id}/extract`, {
        body: { options: { timeout: 0.2 } },
      });
      expect(zero.status).toBe(400);
      expect(zero.body.message).toContain("options.timeout");
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("ends a session with no body or an empty one, and refuses a body with keys as the reference does", async () => {
    const id = await start();
    const refused = await service.call("POST", `/v1/sessions/${id}/end`, {
      body: { force: true },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("Request body must be empty");
    // Refused before anything was done: the session still runs.
    expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(200);
    expect((await service.call("POST", `/v1/sessions/${id}/end`, { body: {} })).status).toBe(200);
    const other = await start();
    expect((await service.call("POST", `/v1/sessions/${other}/end`)).status).toBe(200);
  });
});
