/**
 * `/start`'s `browser` field on a service whose operator opted in: a caller's binary and
 * switches launch (the sandbox's switches still refused), and a session attaches to a browser
 * the caller runs, at an address the egress rule lets through (this test's rule lets 127.0.0.1
 * through, not 127.0.0.2), answered back as given; ending it leaves that browser running.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPack } from "../../lib/browser/chromiumPack.js";
import { STRICT_RULE } from "../../lib/net/addressRule.js";
import { pinCallerBrowser } from "../../lib/service/callerBrowser.js";
import { OPT_IN_LAUNCH_OPTIONS } from "../../lib/service/startBrowser.js";
import { startOwnBrowser } from "../support/browserProcess.js";
import { commandLineIfLive } from "../support/processes.js";
import { useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const pages = useStaticServer();
const service = useService({
  browserPolicy: { launchOptions: new Set(OPT_IN_LAUNCH_OPTIONS), callerCdp: true },
});

const start = (body: Record<string, unknown>) =>
  service.call("POST", "/v1/sessions/start", { body });
const end = (id: string) => service.call("POST", `/v1/sessions/${id}/end`);

/** A port of 127.0.0.1 nothing listens on (it was free a moment ago). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** The user agent the session's page reports, read over the session's own cdpUrl. */
async function userAgentOf(cdpUrl: string): Promise<string> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  try {
    return await browser
      .contexts()[0]!
      .pages()[0]!
      .evaluate(() => navigator.userAgent);
  } finally {
    await browser.close();
  }
}

describe("launch options the operator allows", () => {
  let folder = "";
  let wrapper = "";
  beforeAll(async () => {
    // A binary of the caller's: a script that starts Chromium with a user agent of its own. The
    // session's browser may run as a user of its own: the script must be readable by anyone.
    folder = await mkdtemp(join(tmpdir(), "wayfarer-test-binary-"));
    await chmod(folder, 0o755);
    const pack = await chromiumPack();
    wrapper = join(folder, "chromium-wrapper");
    const exports = Object.entries(pack.env)
      .map(([name, value]) => `export ${name}='${value}'`)
      .join("\n");
    await writeFile(
      wrapper,
      `#!/bin/sh\n${exports}\nexec '${pack.executablePath}' --user-agent=WayfarerWrapper/1 "$@"\n`,
    );
    await chmod(wrapper, 0o755);
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it("executablePath launches the caller's binary", async () => {
    const answer = await start({
      browser: { type: "local", launchOptions: { executablePath: wrapper } },
    });
    expect(answer.status, answer.text).toBe(200);
    const id = answer.body.data.sessionId as string;
    try {
      expect(await userAgentOf(answer.body.data.cdpUrl)).toBe("WayfarerWrapper/1");
    } finally {
      await end(id);
    }
  });

  it("args reach the browser's command line, which still carries no debugging port", async () => {
    const answer = await start({
      browser: { launchOptions: { args: ["--user-agent=WayfarerArgs/1", "--lang=fr"] } },
    });
    expect(answer.status, answer.text).toBe(200);
    const id = answer.body.data.sessionId as string;
    try {
      expect(await userAgentOf(answer.body.data.cdpUrl)).toBe("WayfarerArgs/1");
      const pid = service.service.sessions.browserPidOf(id)!;
      const line = commandLineIfLive(pid);
      expect(line).toContain("--lang=fr");
      expect(line).toContain("--remote-debugging-pipe");
      expect(line.some((arg) => arg.startsWith("--remote-debugging-port"))).toBe(false);
      expect(line).not.toContain("--no-sandbox");
    } finally {
      await end(id);
    }
  });

  it.each([
    ["--no-sandbox", /switches Chromium's sandbox off/],
    ["-Single-Process", /outside the renderer sandbox/],
    ["--renderer-cmd-prefix=/bin/sh -c id", /runs a program/],
    ["--remote-debugging-port=9222", /besides the service's CDP proxy/],
    ["--proxy-server=http://127.0.0.1:1", /around the service's egress guard/],
  ])("%s is refused even so, naming its place in args", async (arg, why) => {
    const before = service.service.sessions.size;
    const answer = await start({ browser: { launchOptions: { args: ["--mute-audio", arg] } } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain("→ at start body.browser.launchOptions.args.1");
    expect(answer.body.message).toMatch(why);
    expect(service.service.sessions.size).toBe(before);
  });
});

describe("browser.cdpUrl: the caller's own browser", () => {
  it("attaches, answers the address as given, drives its pages, and leaves it running when the session ends", async () => {
    const own = await startOwnBrowser();
    try {
      for (const given of [own.wsEndpoint, `http://127.0.0.1:${own.port}`]) {
        const answer = await start({ browser: { type: "local", cdpUrl: given } });
        expect(answer.status, answer.text).toBe(200);
        const id = answer.body.data.sessionId as string;
        // As the reference: the address the caller gave, not the service's proxy.
        expect(answer.body.data.cdpUrl).toBe(given);
        const navigated = await service.call("POST", `/v1/sessions/${id}/navigate`, {
          body: { url: pages.url("basic.html"), options: {} },
        });
        expect(navigated.status, navigated.text).toBe(200);
        // Not a browser of this host: no process, no folder, no way in through the proxy.
        expect(service.service.sessions.browserPidOf(id)).toBeUndefined();
        const mine = await chromium.connectOverCDP(own.wsEndpoint);
        try {
          const urls = () =>
            mine
              .contexts()[0]!
              .pages()
              .map((page) => page.url());
          expect(urls()).toContain(pages.url("basic.html"));
          const ended = await end(id);
          expect(ended.status).toBe(200);
          // Let go, never closed: the test's browser and its page are still there.
          expect(mine.isConnected()).toBe(true);
          expect(urls()).toContain(pages.url("basic.html"));
          expect(commandLineIfLive(own.pid).length).toBeGreaterThan(0);
        } finally {
          await mine.close();
        }
      }
    } finally {
      await own.stop();
    }
  });

  it("refuses an address the egress rule refuses, and one that is no browser's address", async () => {
    const before = service.service.sessions.size;
    for (const [cdpUrl, why] of [
      ["ws://127.0.0.2:9222/devtools/browser/x", /egress rule .*it is a loopback address/],
      ["ws://10.1.2.3:9222/devtools/browser/x", /egress rule .*it is a private address/],
      ["ws://169.254.169.254/", /egress rule .*link-local or cloud metadata/],
      ["file:///etc/passwd", /expected a ws:\/\/, wss:\/\/, http:\/\/ or https:\/\/ URL/],
    ] as const) {
      const answer = await start({ browser: { type: "local", cdpUrl } });
      expect(answer.status, cdpUrl).toBe(400);
      expect(answer.body.message).toContain("→ at start body.browser.cdpUrl");
      expect(answer.body.message).toMatch(why);
    }
    expect(service.service.sessions.size).toBe(before);
  });

  it("an address nothing answers at fails the start, naming it, and leaves no session", async () => {
    const closed = await freePort();
    const before = service.service.sessions.size;
    for (const cdpUrl of [
      `ws://127.0.0.1:${closed}/devtools/browser/x`,
      `http://127.0.0.1:${closed}`,
    ]) {
      const answer = await start({
        browser: { cdpUrl, launchOptions: { connectTimeoutMs: 5_000 } },
      });
      expect(answer.status, cdpUrl).toBe(500);
      expect(answer.body.message).toContain(`127.0.0.1:${closed}`);
      expect(answer.body.message).toMatch(/could not (attach to|reach) (your|the) browser/);
    }
    expect(service.service.sessions.size).toBe(before);
  });

  it("keeps only the path of what an http address names as its WebSocket, and follows no redirect", async () => {
    let redirect = false;
    const server = createHttpServer((_req, res) => {
      if (redirect)
        return void res.writeHead(302, { location: "http://127.0.0.2:9/json/version" }).end();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ webSocketDebuggerUrl: "ws://127.0.0.2:9/devtools/browser/abc?k=1" }),
      );
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
    const { port } = server.address() as AddressInfo;
    const rule = { ...STRICT_RULE, allowHosts: ["127.0.0.1"] };
    try {
      expect(await pinCallerBrowser(`http://127.0.0.1:${port}`, ["cdpUrl"], rule)).toBe(
        `ws://127.0.0.1:${port}/devtools/browser/abc?k=1`,
      );
      redirect = true;
      await expect(pinCallerBrowser(`http://127.0.0.1:${port}`, ["cdpUrl"], rule)).rejects.toThrow(
        /could not reach the browser at cdpUrl/,
      );
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });

  it("refuses two different addresses in the reference's two spellings", async () => {
    const answer = await start({
      browser: {
        cdpUrl: "ws://127.0.0.1:1/a",
        launchOptions: { cdpUrl: "ws://127.0.0.1:2/b" },
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain(
      "give your browser's address once: browser.cdpUrl or browser.launchOptions.cdpUrl → at start body.browser.launchOptions.cdpUrl",
    );
  });
});
