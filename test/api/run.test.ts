import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as run from "../../api/run.js";
import { RESERVE_MS } from "../../lib/job/runJob.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { serveFunction } from "../support/functionServer.js";
import { failing, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { shopModel as scriptedShop } from "../support/llm/shopModel.js";
import { freePort } from "../support/ports.js";
import { type StaticServer, startStaticServer } from "../support/staticServer.js";
import { useTempFolders } from "../support/tempFolders.js";

// The handler's machinery under a job of the test's own: a fork's job.config.ts (another page,
// a schema) changes nothing here. Its own job runs in test/job/handler.test.ts.
vi.mock("../../job.config.js", () => ({
  job: { url: "https://example.invalid/", model: "openai/gpt-4.1-mini" },
}));

const SECRET = "cron-secret-for-tests-0123456789";
const MODEL_KEY = "sk-api-test-model-key-98765";
let site: StaticServer;
let fn: { url: string; close(): Promise<void> };
let restoreEnv: () => void = () => {};
const model = useModelServer();
const tempFolder = useTempFolders();

beforeAll(async () => {
  site = await startStaticServer();
  fn = await serveFunction(run, "/api/run");
});
afterAll(async () => {
  await fn.close();
  await site.close();
});
beforeEach(() => {
  restoreEnv = restoreEnvAfterwards();
  delete process.env.VERCEL;
  process.env.CRON_SECRET = SECRET;
  process.env.OPENAI_API_KEY = MODEL_KEY;
  process.env.JOB_URL = site.url("outline/shop.html");
  process.env.JOB_ACT = "add black tea to the cart";
  process.env.JOB_EXTRACT = "what is in the cart";
  process.env.JOB_MODEL = "openai/gpt-4.1-mini";
  // The job's recorded actions go to a folder of the test's own, never the repository's.
  process.env.JOB_CACHE_DIR = tempFolder("wayfarer-api-cache-");
});
afterEach(() => restoreEnv());

const shopModel = scriptedShop();

const call = (method: "GET" | "POST", authorization?: string, body?: unknown) =>
  fetch(fn.url, {
    method,
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** One readable line: no escape codes, no call log, no line breaks, no stack frames. */
function expectReadable(error: string): void {
  expect(error).not.toContain("\u001b");
  expect(error).not.toMatch(/call log/i);
  expect(error).not.toContain("\n");
  expect(error).not.toMatch(/\bat \S+:\d+:\d+/);
}

/** The debug lines api/run.ts writes while `work` runs. */
async function debugLines(work: () => Promise<void>): Promise<string[]> {
  const spy = vi.spyOn(console, "debug").mockImplementation(() => {});
  try {
    await work();
    return spy.mock.calls.map((args) => args.join(" "));
  } finally {
    spy.mockRestore();
  }
}

describe("/api/run", () => {
  it("runs the job for the cron's GET and for POST: {ok: true, data}, with Server-Timing", async () => {
    model.use(shopModel);
    for (const method of ["GET", "POST"] as const) {
      const response = await call(method, `Bearer ${SECRET}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true, data: "Cart: black" });
      expect(response.headers.get("server-timing")).toMatch(
        /^init;dur=\d+, goto;dur=\d+, act;dur=\d+, extract;dur=\d+, close;dur=\d+$/,
      );
    }
  });

  it("takes a POST body's url/act/extract for one run, and refuses a bad one with 400", async () => {
    model.use(shopModel);
    const response = await call("POST", `Bearer ${SECRET}`, { extract: "the shop's title" });
    expect(await response.json()).toEqual({ ok: true, data: "Tea shop" });
    const bad = await call("POST", `Bearer ${SECRET}`, { extract: "x", steps: 4 });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toContain("steps");
  });

  it("refuses callers without the bearer secret", async () => {
    for (const auth of [undefined, "Bearer wrong", SECRET, `Bearer ${SECRET}x`, "Bearer "]) {
      const response = await call("POST", auth);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        ok: false,
        error: expect.stringContaining("Authorization"),
      });
    }
  });

  it("deployed without CRON_SECRET it refuses to run; locally it runs without one", async () => {
    model.use(shopModel);
    delete process.env.CRON_SECRET;
    process.env.VERCEL = "1";
    const deployed = await call("GET", "Bearer anything");
    expect(deployed.status).toBe(500);
    expect((await deployed.json()).error).toContain("CRON_SECRET is not set");
    delete process.env.VERCEL;
    const local = await call("GET");
    expect(local.status).toBe(200);
  });

  it("a model error is {ok: false, error} with 500, and no key in it", async () => {
    model.use(
      failing("https://api.openai.com/v1/responses", 401, {
        error: { message: `Incorrect API key provided: ${MODEL_KEY}` },
      }),
    );
    const response = await call("POST", `Bearer ${SECRET}`);
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body.error).toContain("Incorrect API key provided");
    expect(JSON.stringify(body)).not.toContain(MODEL_KEY);
  });

  it("answers 500 when the page cannot be opened, never echoing a secret in its URL", async () => {
    process.env.JOB_URL = `http://127.0.0.1:${await freePort()}/unreachable?token=${SECRET}&key=job-key-24680`;
    const response = await call("POST", `Bearer ${SECRET}`);
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body.error).toMatch(/ERR_CONNECTION_REFUSED/);
    expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(JSON.stringify(body)).not.toContain("job-key-24680");
  });

  it("a closed port on 127.0.0.1: one readable line (step, what failed, what to do); the raw text in a debug line", async () => {
    const url = `http://127.0.0.1:${await freePort()}/`;
    process.env.JOB_URL = url;
    // The same answer with the egress guard (its 502 turned back into Chromium's code) and without.
    for (const egress of ["on", "off"]) {
      process.env.JOB_EGRESS = egress;
      let body: { ok: boolean; error: string } | undefined;
      const lines = await debugLines(async () => {
        body = await (await call("POST", `Bearer ${SECRET}`)).json();
      });
      expect(body).toEqual({
        ok: false,
        error: `Step "goto" failed: could not open ${url}: the connection was refused (net::ERR_CONNECTION_REFUSED). Nothing listens at that address and port: check the URL and that the server is up.`,
      });
      expectReadable(body!.error);
      const raw = lines.find((line) => line.includes("ERR_CONNECTION_REFUSED"));
      expect(raw).toBeDefined();
      const { level, detail } = JSON.parse(raw!);
      expect(level).toBe("debug");
      if (egress === "on") expect(detail).toContain(`net::ERR_CONNECTION_REFUSED at ${url}`);
      else {
        expect(detail).toContain("Call log:");
        expect(detail).toContain(`navigating to "${url}"`);
      }
    }
  });

  it("a failed page's address keeps no password and no job variable's value", async () => {
    const port = await freePort();
    process.env.JOB_VAR_CODE = "hunter-2-token";
    process.env.JOB_URL = `http://ada:pass-word-9@127.0.0.1:${port}/?code=hunter-2-token`;
    let body: { ok: boolean; error: string } | undefined;
    const lines = await debugLines(async () => {
      body = await (await call("POST", `Bearer ${SECRET}`)).json();
    });
    expect(body!.error).toContain(`could not open http://127.0.0.1:${port}/?code=%CODE%:`);
    for (const text of [body!.error, ...lines]) {
      expect(text).not.toContain("pass-word-9");
      expect(text).not.toContain("hunter-2-token");
    }
  });

  it("a host name that does not resolve: one readable line", async () => {
    process.env.JOB_URL = "http://no-such-host.invalid/";
    const response = await call("POST", `Bearer ${SECRET}`);
    expect(response.status).toBe(500);
    const { error } = await response.json();
    expect(error).toBe(
      'Step "goto" failed: could not open http://no-such-host.invalid/: the host name did not resolve (net::ERR_NAME_NOT_RESOLVED). Check the host name in the URL, and that this machine can reach a DNS server.',
    );
    expectReadable(error);
  });

  it("refuses a JOB_URL outside the navigation policy", async () => {
    for (const url of ["file:///etc/passwd", "http://169.254.169.254/latest/meta-data/"]) {
      process.env.JOB_URL = url;
      const response = await call("POST", `Bearer ${SECRET}`);
      expect(response.status).toBe(500);
      expect((await response.json()).error).toContain(`Refused to navigate to ${url}`);
    }
  });

  it("answers 400 for a POST body's url the job may not open, before any browser starts", async () => {
    for (const [url, why] of [
      ["http://169.254.169.254/latest/meta-data/", "link-local or cloud metadata"],
      ["http://[::ffff:a9fe:a9fe]/", "link-local or cloud metadata"],
      ["http://metadata.google.internal/computeMetadata/v1/", "link-local or cloud metadata"],
      ["file:///etc/passwd", "the file: scheme is not allowed"],
    ] as const) {
      const response = await call("POST", `Bearer ${SECRET}`, { url });
      expect(response.status, url).toBe(400);
      const body = await response.json();
      expect(body).toEqual({
        ok: false,
        error: expect.stringContaining(`Refused to navigate to ${url}`),
      });
      expect(body.error).toContain(why);
      expectReadable(body.error);
    }
  });

  it("a page that never loads: the answer arrives within the budget, one readable line", async () => {
    process.env.JOB_URL = `${site.origin}/__hang`;
    const budgetMs = RESERVE_MS + 3_000;
    process.env.JOB_BUDGET_MS = String(budgetMs);
    const started = Date.now();
    const response = await call("POST", `Bearer ${SECRET}`);
    expect(response.status).toBe(500);
    const { error } = await response.json();
    // Either goto's own limit or the job's (3 s, less what init took) ends it first.
    expect(error).toMatch(
      new RegExp(
        `^Step "goto" failed: the page did not finish loading within [\\d.]+ s \\(\\d+ ms passed waiting for .+\\)\\. Check that its server answers, or give the job more time with JOB_BUDGET_MS \\(this run had ${budgetMs} ms\\)\\.$`,
      ),
    );
    expectReadable(error);
    expect(Date.now() - started).toBeLessThan(budgetMs + 2_000);
  });
});

describe("RESULT_WEBHOOK_URL", () => {
  const WEBHOOK_SECRET = "webhook-signing-secret-5555";
  async function receiver(statuses: number[]) {
    const received: { body: string; signature: string | undefined }[] = [];
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      received.push({
        body: Buffer.concat(chunks).toString(),
        signature: req.headers["x-wayfarer-signature"] as string | undefined,
      });
      res.writeHead(statuses.shift() ?? 200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/results`;
    return { url, received, close: () => new Promise((r) => server.close(r)) };
  }
  const verified = (r: { body: string; signature: string | undefined }) =>
    r.signature === `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(r.body).digest("hex")}`;

  it("gets each run's answer, signed, and is retried after a failure", async () => {
    model.use(shopModel);
    const hook = await receiver([500]);
    process.env.RESULT_WEBHOOK_URL = hook.url;
    process.env.RESULT_WEBHOOK_SECRET = WEBHOOK_SECRET;
    try {
      const response = await call("POST", `Bearer ${SECRET}`);
      expect(await response.json()).toEqual({ ok: true, data: "Cart: black" });
      expect(hook.received).toHaveLength(2);
      for (const r of hook.received) expect(verified(r)).toBe(true);
      const payload = JSON.parse(hook.received[1]!.body);
      expect(payload).toMatchObject({
        ok: true,
        data: "Cart: black",
        timings: { init: expect.any(Number) },
      });
    } finally {
      await hook.close();
    }
  });

  it("a page that cannot be opened: the payload's error is the answer's readable line", async () => {
    const hook = await receiver([]);
    process.env.RESULT_WEBHOOK_URL = hook.url;
    process.env.JOB_URL = `http://127.0.0.1:${await freePort()}/`;
    try {
      const answer = await (await call("POST", `Bearer ${SECRET}`)).json();
      const payload = JSON.parse(hook.received[0]!.body);
      expect(payload.ok).toBe(false);
      expect(payload.error).toBe(answer.error);
      expect(payload.error).toMatch(/^Step "goto" failed: .*connection was refused/);
      expectReadable(payload.error);
    } finally {
      await hook.close();
    }
  });

  it("on failure: the error, the last URL and a screenshot", async () => {
    const hook = await receiver([]);
    process.env.RESULT_WEBHOOK_URL = hook.url;
    process.env.RESULT_WEBHOOK_SECRET = WEBHOOK_SECRET;
    process.env.JOB_ACT = "launch the rocket";
    model.use(openaiResponses(() => ({ elements: [] })));
    try {
      const response = await call("POST", `Bearer ${SECRET}`);
      expect(response.status).toBe(500);
      const payload = JSON.parse(hook.received[0]!.body);
      expect(verified(hook.received[0]!)).toBe(true);
      expect(payload.ok).toBe(false);
      expect(payload.error).toContain("act did not succeed");
      expect(payload.url).toBe(site.url("outline/shop.html"));
      expect(Buffer.from(payload.screenshot, "base64").subarray(1, 4).toString()).toBe("PNG");
    } finally {
      await hook.close();
    }
  });
});
