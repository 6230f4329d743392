import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as run from "../../api/run.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { serveFunction } from "../support/functionServer.js";
import { freePort } from "../support/ports.js";
import { type StaticServer, startStaticServer } from "../support/staticServer.js";

const SECRET = "cron-secret-for-tests-0123456789";
let site: StaticServer;
let fn: { url: string; close(): Promise<void> };
let restoreEnv: () => void = () => {};

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
});
afterEach(() => {
  restoreEnv();
});

const call = (method: "GET" | "POST", authorization?: string) =>
  fetch(fn.url, { method, headers: authorization ? { authorization } : {} });

describe("/api/run (demo job)", () => {
  it("refuses callers without the bearer secret", async () => {
    process.env.CRON_SECRET = SECRET;
    process.env.JOB_URL = site.url("basic.html");
    for (const auth of [undefined, "Bearer wrong", SECRET, `Bearer ${SECRET}x`, "Bearer "]) {
      const response = await call("POST", auth);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        ok: false,
        error: expect.stringContaining("Authorization"),
      });
    }
  });

  it("refuses to run at all when CRON_SECRET is not set", async () => {
    delete process.env.CRON_SECRET;
    const response = await call("GET", "Bearer anything");
    expect(response.status).toBe(500);
    expect((await response.json()).error).toContain("CRON_SECRET is not set");
  });

  it("answers {ok: true, data} for the cron's GET and for POST", async () => {
    process.env.CRON_SECRET = SECRET;
    process.env.JOB_URL = site.url("basic.html");
    for (const method of ["GET", "POST"] as const) {
      const response = await call(method, `Bearer ${SECRET}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true, data: "Basic fixture" });
    }
  });

  it("answers {ok: false, error} with status 500 when the page cannot be opened, never echoing the secret", async () => {
    process.env.CRON_SECRET = SECRET;
    // The URL (and so Chromium's error message) carries the secret: the answer must not.
    process.env.JOB_URL = `http://127.0.0.1:${await freePort()}/unreachable?token=${SECRET}&key=job-key-24680`;
    const response = await call("POST", `Bearer ${SECRET}`);
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body.ok).toBe(false);
    expect(body.error).toMatch(/ERR_CONNECTION_REFUSED/);
    expect(body.error).toContain("token=[REDACTED]");
    expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(JSON.stringify(body)).not.toContain("job-key-24680");
  });

  it("refuses a JOB_URL outside the navigation policy", async () => {
    process.env.CRON_SECRET = SECRET;
    for (const url of ["file:///etc/passwd", "http://169.254.169.254/latest/meta-data/"]) {
      process.env.JOB_URL = url;
      const response = await call("POST", `Bearer ${SECRET}`);
      expect(response.status).toBe(500);
      expect((await response.json()).error).toContain(`Refused to navigate to ${url}`);
    }
  });
});
