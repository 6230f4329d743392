/**
 * The operator's limits on one service, against real browsers and the model kit: sessions per
 * project (429 naming the variable, another project still starts, a failed start gives its slot
 * back), model tokens per project per minute and per day counted only on the operator's key,
 * a keepAlive session's most life, each cap of what /start may ask (400 naming the field and the
 * variable), and pages per session (popups and CDP targets past the cap closed as they open).
 */
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { serviceConfig } from "../../lib/service/config.js";
import { LocalTokens } from "../../lib/service/quotas.js";
import { restoreEnvAfterwards, useEnvVars } from "../support/env.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { OPENAI_USAGE } from "../support/llm/openai.js";
import { shopModel } from "../support/llm/shopModel.js";
import { waitUntilGone } from "../support/processes.js";
import { framesOf, KEYS, type RunningService, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const OPERATOR_KEY = "sk-operator-quota-test-0123456789";
const CALLER_KEY = "sk-caller-quota-test-0123456789";
const PER_CALL = OPENAI_USAGE.input + OPENAI_USAGE.output;
const pages = useStaticServer();
const model = useModelServer(shopModel());
useEnvVars(() => ({ OPENAI_API_KEY: OPERATOR_KEY }));
const defaults = serviceConfig({}).limits;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts a session of the key's project (alpha unless given); the whole answer. */
function start(service: RunningService, init: { key?: string; body?: unknown; modelKey?: string }) {
  return service.call("POST", "/v1/sessions/start", {
    key: init.key ?? KEYS.alpha,
    body: { modelName: "openai/gpt-4.1-mini", ...(init.body as object) },
    headers: init.modelKey ? { "x-model-api-key": init.modelKey } : {},
  });
}

/** A session at the tea shop; its id. */
async function shopSession(
  service: RunningService,
  init: { key?: string; modelKey?: string } = {},
): Promise<string> {
  const started = await start(service, init);
  expect(started.status, started.text).toBe(200);
  const id = started.body.data.sessionId as string;
  const went = await service.call("POST", `/v1/sessions/${id}/navigate`, {
    key: init.key ?? KEYS.alpha,
    body: { url: pages.url("outline/shop.html") },
  });
  expect(went.status, went.text).toBe(200);
  return id;
}

const extract = (service: RunningService, id: string, key = KEYS.alpha, options = {}) =>
  service.call("POST", `/v1/sessions/${id}/extract`, {
    key,
    body: { instruction: "what is in the cart", options },
  });

/** Model requests made with this key. */
const paidWith = (key: string) =>
  model.requests().filter((r) => r.headers.get("authorization") === `Bearer ${key}`).length;

describe("sessions per project", () => {
  const service = useService({ maxSessions: 4, limits: { ...defaults, projectSessions: 2 } });

  it("a project at its limit gets 429 naming WAYFARER_PROJECT_MAX_SESSIONS; another project still starts; ending one frees its slot", async () => {
    const ids: [string, string][] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const ok = await start(service, {});
        expect(ok.status).toBe(200);
        ids.push([ok.body.data.sessionId, KEYS.alpha]);
      }
      const refused = await start(service, {});
      expect(refused.status).toBe(429);
      expect(refused.body.message).toContain("WAYFARER_PROJECT_MAX_SESSIONS");
      expect(refused.body.error).toMatchObject({ name: "QuotaExceeded", code: "QUOTA_EXCEEDED" });
      // Waiting a few seconds does not lift it: SDKs that retry every 429 are told not to.
      expect(refused.headers.get("x-should-retry")).toBe("false");
      // The service has room (4): beta is not held back by alpha.
      const other = await start(service, { key: KEYS.beta });
      expect(other.status).toBe(200);
      ids.push([other.body.data.sessionId, KEYS.beta]);
      const [first] = ids.splice(0, 1);
      await service.call("POST", `/v1/sessions/${first![0]}/end`);
      const again = await start(service, {});
      expect(again.status).toBe(200);
      ids.push([again.body.data.sessionId, KEYS.alpha]);
    } finally {
      for (const [id, key] of ids) await service.call("POST", `/v1/sessions/${id}/end`, { key });
    }
  });

  it("a start that fails gives its slot back", async () => {
    const restore = restoreEnvAfterwards();
    // The engine refuses this profile after the slot was taken: a start that fails late.
    process.env.WAYFARER_BROWSER_PROFILE = "no-such-profile";
    try {
      for (let i = 0; i < 3; i++) {
        const failed = await start(service, {});
        expect(failed.status).not.toBe(200);
        expect(failed.body.message).toContain("WAYFARER_BROWSER_PROFILE");
      }
    } finally {
      restore();
    }
    const ids: string[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const ok = await start(service, {});
        expect(ok.status).toBe(200);
        ids.push(ok.body.data.sessionId);
      }
    } finally {
      for (const id of ids) await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});

describe("model tokens per project per minute", () => {
  const service = useService({
    serverCache: false,
    limits: { ...defaults, projectTokensPerMinute: 2 * PER_CALL },
  });

  it("counts only calls on the operator's key; past the budget the next call is not made (429 naming the variable); another project still spends", async () => {
    const alpha = await shopSession(service);
    const own = await shopSession(service, { modelKey: CALLER_KEY });
    const beta = await shopSession(service, { key: KEYS.beta });
    try {
      // The calls below within one minute window.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 40_000) await sleep(60_000 - intoMinute + 200);
      for (let i = 0; i < 2; i++) expect((await extract(service, alpha)).status).toBe(200);
      expect(paidWith(OPERATOR_KEY)).toBe(2);
      const refused = await extract(service, alpha);
      expect(refused.status).toBe(429);
      expect(refused.body.message).toContain("WAYFARER_PROJECT_TOKENS_PER_MINUTE");
      expect(refused.body.message).toContain(`${2 * PER_CALL} model tokens`);
      // The minute's budget comes back within the minute: when, in Retry-After.
      const after = Number(refused.headers.get("retry-after"));
      expect(after).toBeGreaterThan(0);
      expect(after).toBeLessThanOrEqual(60);
      expect(paidWith(OPERATOR_KEY)).toBe(2);
      // A stream says so in its error frame.
      const streamed = await service.call("POST", `/v1/sessions/${alpha}/extract`, {
        body: { instruction: "what is in the cart", options: {} },
        headers: { "x-stream-response": "true" },
      });
      const last = framesOf(streamed.text).at(-1);
      expect(last.data).toMatchObject({ status: "error", errorDetail: { name: "QuotaExceeded" } });
      // The caller's own key pays: the session's x-model-api-key, or a per-call model's apiKey.
      expect((await extract(service, own)).status).toBe(200);
      const perCall = await extract(service, alpha, KEYS.alpha, {
        model: { modelName: "openai/gpt-4.1-mini", apiKey: CALLER_KEY },
      });
      expect(perCall.status, perCall.text).toBe(200);
      expect(paidWith(CALLER_KEY)).toBe(2);
      // Beta's budget is its own.
      for (let i = 0; i < 2; i++) {
        expect((await extract(service, beta, KEYS.beta)).status).toBe(200);
      }
      expect((await extract(service, beta, KEYS.beta)).status).toBe(429);
      expect(paidWith(OPERATOR_KEY)).toBe(4);
    } finally {
      await service.call("POST", `/v1/sessions/${alpha}/end`);
      await service.call("POST", `/v1/sessions/${own}/end`);
      await service.call("POST", `/v1/sessions/${beta}/end`, { key: KEYS.beta });
    }
  }, 120_000);

  it("counts in a minute window and a UTC day", () => {
    const tokens = new LocalTokens();
    const t = Date.UTC(2025, 0, 1, 12, 0, 30);
    tokens.add("p", 100, t);
    tokens.add("p", 50, t + 10_000);
    expect(tokens.spent("p", t + 20_000)).toEqual({ minute: 150, day: 150 });
    expect(tokens.spent("p", t + 40_000)).toEqual({ minute: 0, day: 150 });
    expect(tokens.spent("p", Date.UTC(2025, 0, 2, 0, 0, 1))).toEqual({ minute: 0, day: 0 });
    expect(tokens.spent("q", t)).toEqual({ minute: 0, day: 0 });
  });
});

describe("model tokens per project per day", () => {
  const service = useService({
    serverCache: false,
    limits: { ...defaults, projectTokensPerDay: 2 * PER_CALL },
  });

  it("past the day's budget the next call is not made: 429 naming WAYFARER_PROJECT_TOKENS_PER_DAY", async () => {
    const alpha = await shopSession(service);
    try {
      const before = paidWith(OPERATOR_KEY);
      for (let i = 0; i < 2; i++) expect((await extract(service, alpha)).status).toBe(200);
      const refused = await extract(service, alpha);
      expect(refused.status).toBe(429);
      expect(refused.body.message).toContain("WAYFARER_PROJECT_TOKENS_PER_DAY");
      expect(paidWith(OPERATOR_KEY) - before).toBe(2);
    } finally {
      await service.call("POST", `/v1/sessions/${alpha}/end`);
    }
  });
});

describe("a keepAlive session's most life", () => {
  const MAX_MS = 3_000;
  const service = useService({ limits: { ...defaults, keepAliveMaxMs: MAX_MS } });

  it("ends a keepAlive session at WAYFARER_KEEPALIVE_MAX_MS though a client is connected; one without keepAlive lives on", async () => {
    // Its life is counted from when it started, before /start answered.
    const asked = Date.now();
    const kept = await start(service, {
      body: { browserbaseSessionCreateParams: { keepAlive: true } },
    });
    const plain = await start(service, {});
    const plainAnswered = Date.now();
    const [keptId, plainId] = [kept.body.data.sessionId, plain.body.data.sessionId] as string[];
    const pid = service.service.sessions.browserPidOf(keptId!)!;
    const info = await service.call("GET", `/v1/sessions/${keptId}`);
    const browser = await chromium.connectOverCDP(info.body.connectUrl as string);
    try {
      let status = 200;
      while (status === 200 && Date.now() - asked < 20_000) {
        await sleep(250);
        status = (await service.call("GET", `/v1/sessions/${keptId}`)).status;
      }
      expect(status).toBe(404);
      expect(Date.now() - asked).toBeGreaterThanOrEqual(MAX_MS);
      expect(await waitUntilGone(pid)).toEqual([]);
      // Older now than the keepAlive session got to be.
      await sleep(Math.max(0, plainAnswered + MAX_MS + 500 - Date.now()));
      expect((await service.call("GET", `/v1/sessions/${plainId}`)).status).toBe(200);
    } finally {
      await browser.close().catch(() => {});
      await service.call("POST", `/v1/sessions/${plainId}/end`);
    }
  });

  it("cuts a platform timeout longer than it to it, and says so in the session's log", async () => {
    // The platform allows six hours, and v3 clients send what their users set: cut, not refused.
    const started = await start(service, {
      body: { verbose: 1, browserbaseSessionCreateParams: { timeout: 3_600 } },
    });
    expect(started.status).toBe(200);
    const id = started.body.data.sessionId as string;
    const session = service.service.sessions.find(id);
    expect(session?.lines.map((l) => l.message).join("\n")).toContain(
      "timeout 3600 s cut to 3 s, the longest on this service (WAYFARER_KEEPALIVE_MAX_MS)",
    );
    await waitUntilGone(session!.browserPid!, MAX_MS + 10_000);
    expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(404);
  });
});

describe("what /start may ask, capped", () => {
  const service = useService({
    limits: {
      ...defaults,
      maxChunksPerCall: 4,
      minOutlineTokenBudget: 2_000,
      sessionTokenCap: 200,
      maxViewport: { width: 1600, height: 1000 },
      maxPages: 3,
    },
  });

  it.each([
    [
      "wayfarer.maxChunksPerCall",
      { wayfarer: { maxChunksPerCall: 5 } },
      "WAYFARER_MAX_CHUNKS_PER_CALL",
    ],
    [
      "wayfarer.outlineTokenBudget",
      { wayfarer: { outlineTokenBudget: 1_999 } },
      "WAYFARER_MIN_OUTLINE_TOKEN_BUDGET",
    ],
    ["wayfarer.tokenCap", { wayfarer: { tokenCap: 201 } }, "WAYFARER_SESSION_TOKEN_CAP"],
    [
      "browserbaseSessionCreateParams.browserSettings.viewport.width",
      {
        browserbaseSessionCreateParams: {
          browserSettings: { viewport: { width: 1601, height: 900 } },
        },
      },
      "WAYFARER_MAX_VIEWPORT",
    ],
    [
      "browserbaseSessionCreateParams.browserSettings.viewport.height",
      {
        browserbaseSessionCreateParams: {
          browserSettings: { viewport: { width: 800, height: 10_000 } },
        },
      },
      "WAYFARER_MAX_VIEWPORT",
    ],
  ])("%s past its cap is a 400 naming it and %s", async (field, body, variable) => {
    const refused = await start(service, { body });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(`start body.${field}`);
    expect(refused.body.message).toContain(variable);
    expect(service.service.sessions.size).toBe(0);
  });

  it("takes values within the caps; a session that asks no tokenCap gets the operator's", async () => {
    const within = await start(service, {
      body: {
        wayfarer: { maxChunksPerCall: 4, outlineTokenBudget: 2_000, tokenCap: 200 },
        browserbaseSessionCreateParams: {
          browserSettings: { viewport: { width: 1600, height: 1000 } },
        },
      },
    });
    expect(within.status, within.text).toBe(200);
    await service.call("POST", `/v1/sessions/${within.body.data.sessionId}/end`);
    const id = await shopSession(service);
    try {
      const before = model.requests().length;
      const capped = await extract(service, id);
      expect(capped.body.message).toContain("cap of 200");
      expect(model.requests().length).toBe(before);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("closes pages past WAYFARER_MAX_PAGES as they open (popups), and refuses targets a CDP client asks for past them, in a context of its own too", async () => {
    const started = await start(service, {});
    const id = started.body.data.sessionId as string;
    const session = service.service.sessions.find(id)!;
    await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: pages.url("basic.html") },
    });
    const info = await service.call("GET", `/v1/sessions/${id}`);
    const browser = await chromium.connectOverCDP(info.body.connectUrl as string);
    const cdp = await browser.newBrowserCDPSession();
    const openPages = async () =>
      (await cdp.send("Target.getTargets")).targetInfos.filter((t) => t.type === "page").length;
    /** The page count once it stops changing. */
    const settled = async () => {
      let last = -1;
      for (let i = 0; i < 40; i++) {
        const now = await openPages();
        if (now === last) return now;
        last = now;
        await sleep(250);
      }
      return last;
    };
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.evaluate(() => {
        for (let i = 0; i < 6; i++) window.open("about:blank", `popup${i}`);
      });
      // The popups are made by the browser after window.open returns: wait for the four it closes.
      const closedLines = () =>
        session.lines.filter((l) => l.message.includes("closed a new page"));
      await expect.poll(() => closedLines().length, { timeout: 15_000 }).toBe(4);
      expect(await settled()).toBe(3);
      const { browserContextId } = await cdp.send("Target.createBrowserContext");
      // A target the client asks for past the cap is refused, in the client's own terms.
      await expect(
        cdp.send("Target.createTarget", { url: "about:blank", browserContextId }),
      ).rejects.toThrow(
        /Wayfarer refuses Target\.createTarget: 3 pages are open.*WAYFARER_MAX_PAGES/,
      );
      expect(await settled()).toBe(3);
      // Our side learns of the popups it kept once Playwright has set them up.
      await expect.poll(async () => (await session.pageList()).length, { timeout: 15_000 }).toBe(3);
      const closed = closedLines();
      expect(closed.length).toBe(4);
      expect(closed[0]!.message).toContain("WAYFARER_MAX_PAGES");
    } finally {
      await browser.close().catch(() => {});
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});

describe("the limits' defaults", () => {
  it("a project may use every slot when it is the only one, half of them when there are several", () => {
    expect(serviceConfig({ WAYFARER_MAX_SESSIONS: "8" }).limits.projectSessions).toBe(8);
    const one = { WAYFARER_API_KEYS: "solo:key-solo-0123456789abcdef", WAYFARER_MAX_SESSIONS: "5" };
    expect(serviceConfig(one).limits.projectSessions).toBe(5);
    const two = {
      WAYFARER_API_KEYS: `a:${KEYS.alpha},b:${KEYS.beta}`,
      WAYFARER_MAX_SESSIONS: "5",
    };
    expect(serviceConfig(two).limits.projectSessions).toBe(3);
    expect(
      serviceConfig({ ...two, WAYFARER_PROJECT_MAX_SESSIONS: "5" }).limits.projectSessions,
    ).toBe(5);
    expect(serviceConfig({}).limits).toMatchObject({
      projectTokensPerMinute: undefined,
      projectTokensPerDay: undefined,
      keepAliveMaxMs: 3_600_000,
      maxChunksPerCall: 8,
      minOutlineTokenBudget: 4_000,
      sessionTokenCap: undefined,
      maxViewport: { width: 3840, height: 2160 },
      maxPages: 10,
    });
  });

  it("a bad value is refused at start, naming the variable", () => {
    expect(() => serviceConfig({ WAYFARER_MAX_VIEWPORT: "10000 by 10000" })).toThrow(
      /WAYFARER_MAX_VIEWPORT/,
    );
    expect(() => serviceConfig({ WAYFARER_PROJECT_TOKENS_PER_DAY: "-1" })).toThrow(
      /WAYFARER_PROJECT_TOKENS_PER_DAY/,
    );
  });
});
