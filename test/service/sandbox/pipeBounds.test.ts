/**
 * No message a browser sends ends the service. A page that throws an error of 50 million
 * characters makes Chromium write a ~600 MB `Runtime.exceptionThrown` over the pipe; a key
 * holder's `Runtime.evaluate` of a 100 MB string answers ~600 MB. Either, read whole, passes
 * V8's longest string and took the process (every project's sessions) down. Now the first ends
 * only the session whose page did it (its next call says why), the second fails only the command
 * that asked, and another project's calls are answered all the while. The service runs as
 * `npm run service` does, in its own process, so its exit and its memory are its own.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectCdp } from "../../support/cdpClient.js";
import { keepAcrossTests } from "../../support/keptProcesses.js";
import { type ServiceProcess, startService } from "../../support/serviceProcess.js";
import { useStaticServer } from "../../support/staticServer.js";

const KEYS = { alpha: "key-alpha-0123456789abcdef", beta: "key-beta-0123456789abcdef" };
const pages = useStaticServer();
let service: ServiceProcess;
let dataDir = "";

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wayfarer-huge-"));
  service = await startService({
    WAYFARER_DATA_DIR: dataDir,
    WAYFARER_API_KEYS: `alpha:${KEYS.alpha},beta:${KEYS.beta}`,
    WAYFARER_ALLOW_HOSTS: "127.0.0.1,localhost",
    WAYFARER_WARM_BROWSERS: "0",
  });
  keepAcrossTests(service.child.pid);
}, 30_000);

afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill("SIGTERM");
    await service.exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function call(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${service.url}/v1${path}`, {
    method,
    headers: { "x-wf-api-key": key, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

async function startOn(key: string, page: string): Promise<string> {
  const started = await call(key, "POST", "/sessions/start", {
    browserbaseSessionCreateParams: { keepAlive: true },
  });
  expect(started.status, started.text).toBe(200);
  const id = started.body.data.sessionId as string;
  const went = await call(key, "POST", `/sessions/${id}/navigate`, { url: pages.url(page) });
  expect(went.status, went.text).toBe(200);
  return id;
}

/** A raw CDP client over the session's connectUrl, attached to its page. */
async function onItsPage(id: string) {
  const info = await call(KEYS.alpha, "GET", `/sessions/${id}`);
  const cdp = await connectCdp(info.body.connectUrl as string);
  const { targetInfos } = await cdp.send("Target.getTargets");
  const page = targetInfos.find((t: { type: string }) => t.type === "page");
  const { sessionId } = await cdp.send("Target.attachToTarget", {
    targetId: page.targetId,
    flatten: true,
  });
  return { cdp, sessionId: sessionId as string };
}

/** The service's resident memory now and at its peak, MB (Linux /proc). */
function memoryMb(): { now: number; peak: number } {
  const status = readFileSync(`/proc/${service.child.pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
  return { now: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** Another project's session answering, call after call, until `done` says stop. */
async function keepsAnswering(id: string, done: () => boolean): Promise<number[]> {
  const statuses: number[] = [];
  while (!done()) {
    const answer = await call(KEYS.beta, "POST", `/sessions/${id}/navigate`, {
      url: pages.url("basic.html"),
    });
    statuses.push(answer.status);
  }
  return statuses;
}

describe("a browser's message past the pipe's cap", () => {
  it("a page's 600 MB error ends its own session, says why, and another project is answered throughout", async () => {
    const other = await startOn(KEYS.beta, "basic.html");
    const victim = await startOn(KEYS.alpha, "basic.html");
    let ended: { status: number; text: string } | undefined;
    const watching = (async () => {
      const went = await call(KEYS.alpha, "POST", `/sessions/${victim}/navigate`, {
        url: pages.url("hugeError.html"),
      });
      expect(went.status, went.text).toBe(200);
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const asked = await call(KEYS.alpha, "GET", `/sessions/${victim}`);
        if (asked.status !== 200) {
          ended = asked;
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const statuses = await keepsAnswering(
      other,
      () => ended !== undefined || service.child.exitCode !== null,
    );
    await watching;

    expect(service.child.exitCode).toBeNull();
    expect(ended?.status).toBe(404);
    expect(ended?.text).toMatch(
      /was ended: its browser sent a \d+ MB message \(Runtime\.exceptionThrown\), more than the 64 MB one may be/,
    );
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Another project learns nothing of why: the id names nothing to it.
    const asOther = await call(KEYS.beta, "GET", `/sessions/${victim}`);
    expect(asOther.status).toBe(404);
    expect(asOther.text).not.toContain("MB");
    // The process held no message whole: far below the 1.3 GB it reached before it died.
    expect(memoryMb().peak).toBeLessThan(700);
    expect((await call(KEYS.beta, "POST", `/sessions/${other}/end`)).status).toBe(200);
  }, 120_000);

  it("a key holder's evaluate answered with 600 MB fails that command alone: the session and the service go on", async () => {
    const id = await startOn(KEYS.alpha, "basic.html");
    const { cdp, sessionId } = await onItsPage(id);
    try {
      const huge = await cdp.answer(
        "Runtime.evaluate",
        { expression: '"\\x01".repeat(1e8)', returnByValue: true },
        sessionId,
      );
      expect("error" in huge && huge.error.message).toMatch(
        /The browser's answer was \d+ MB, more than the 64 MB a message from the browser may be/,
      );
      const after = await cdp.send("Runtime.evaluate", { expression: "6 * 7" }, sessionId);
      expect(after.result.value).toBe(42);
      expect(service.child.exitCode).toBeNull();
      const went = await call(KEYS.alpha, "POST", `/sessions/${id}/navigate`, {
        url: pages.url("second.html"),
      });
      expect(went.status, went.text).toBe(200);
    } finally {
      await cdp.close();
      await call(KEYS.alpha, "POST", `/sessions/${id}/end`);
    }
  }, 120_000);

  it("a key holder's flood of commands the browser never answers: refused past the connection's cap, by name, and the service's memory stays flat", async () => {
    const id = await startOn(KEYS.alpha, "basic.html");
    const other = await startOn(KEYS.beta, "basic.html");
    const { cdp, sessionId } = await onItsPage(id);
    try {
      const before = memoryMb().now;
      const never = { expression: "new Promise(() => {})", awaitPromise: true };
      const answers: Promise<unknown>[] = [];
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 5_000; i++)
          answers.push(cdp.answer("Runtime.evaluate", never, sessionId));
        await new Promise((r) => setTimeout(r, 50));
      }
      // Every command past the cap is answered at once; the 1,024 within it wait.
      const refused = await Promise.all(answers.slice(1_024));
      expect(refused).toHaveLength(100_000 - 1_024);
      for (const answer of refused) {
        expect(answer).toMatchObject({
          error: {
            message: expect.stringMatching(
              /^Too many commands in flight: this connection has 1024 commands awaiting/,
            ),
          },
        });
      }
      const went = await call(KEYS.beta, "POST", `/sessions/${other}/navigate`, {
        url: pages.url("second.html"),
      });
      expect(went.status, went.text).toBe(200);
      expect(memoryMb().now - before).toBeLessThan(100);
      expect(service.child.exitCode).toBeNull();
    } finally {
      await cdp.close();
      await call(KEYS.alpha, "POST", `/sessions/${id}/end`);
      await call(KEYS.beta, "POST", `/sessions/${other}/end`);
    }
  }, 120_000);
});
