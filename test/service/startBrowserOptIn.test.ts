/**
 * `/start`'s `browser` field on a service whose operator opted in: a caller's binary and
 * switches launch (the sandbox's switches still refused), and a session attaches to a browser
 * the caller runs, at an address the egress rule lets through (this test's rule lets 127.0.0.1
 * through, not 127.0.0.2), answered back as given; ending it leaves that browser running.
 */
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, createServer } from "node:net";
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

  it("args reach the browser's command line; switches of the sandbox, of another way in or of a proxy are dropped and noted", async () => {
    const plain = await start({});
    const kept = ["--user-agent=WayfarerArgs/1", "--lang=fr"];
    const dropped = [
      "--no-sandbox",
      "-Single-Process",
      "--remote-debugging-port=9222",
      "--proxy-server=http://127.0.0.1:1",
    ];
    const answer = await start({ browser: { launchOptions: { args: [...kept, ...dropped] } } });
    expect(answer.status, answer.text).toBe(200);
    const id = answer.body.data.sessionId as string;
    try {
      expect(await userAgentOf(answer.body.data.cdpUrl)).toBe("WayfarerArgs/1");
      const lineOf = (session: string) =>
        commandLineIfLive(service.service.sessions.browserPidOf(session)!);
      const line = lineOf(id);
      expect(line).toContain("--lang=fr");
      expect(line).toContain("--remote-debugging-pipe");
      expect(line.some((arg) => /^--(remote-debugging-port|single-process)/i.test(arg))).toBe(
        false,
      );
      expect(line).not.toContain("--proxy-server=http://127.0.0.1:1");
      // The sandbox is as the host allows it, as for a session that asked nothing.
      expect(line.includes("--no-sandbox")).toBe(
        lineOf(plain.body.data.sessionId).includes("--no-sandbox"),
      );
      const log = service.service.sessions.find(id)!.lines.map((l) => l.message);
      for (const arg of dropped) {
        expect(log.some((m) => m.startsWith(`browser.launchOptions.args: ${arg} dropped`))).toBe(
          true,
        );
      }
    } finally {
      await end(id);
      await end(plain.body.data.sessionId);
    }
  });

  it("userDataDir holds the profile and stays; downloadsPath receives the downloads", async () => {
    // Folders the session's browser, maybe a user of its own, may write.
    const profile = join(folder, "profile");
    const downloads = join(folder, "downloads");
    for (const dir of [profile, downloads]) {
      await mkdir(dir);
      await chmod(dir, 0o777);
    }
    const site = createHttpServer((req, res) => {
      if (req.url === "/file.txt") {
        res.writeHead(200, { "content-disposition": 'attachment; filename="file.txt"' });
        return void res.end("downloaded");
      }
      res
        .writeHead(200, { "content-type": "text/html" })
        .end('<a id="get" href="/file.txt">get</a>');
    });
    await new Promise<void>((done) => site.listen(0, "127.0.0.1", () => done()));
    const answer = await start({
      browser: { launchOptions: { userDataDir: profile, downloadsPath: downloads } },
    });
    expect(answer.status, answer.text).toBe(200);
    const id = answer.body.data.sessionId as string;
    try {
      expect(await readdir(profile)).toContain("Default");
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
      await service.call("POST", `/v1/sessions/${id}/navigate`, { body: { url, options: {} } });
      const clicked = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: { input: { selector: "//a[@id='get']", description: "get", method: "click" } },
      });
      expect(clicked.status, clicked.text).toBe(200);
      await expect.poll(() => readdir(downloads)).toEqual(["file.txt"]);
    } finally {
      await end(id);
      site.closeAllConnections();
      await new Promise((done) => site.close(done));
    }
    // A folder the caller named is theirs: the session's end leaves it.
    expect(await readdir(profile)).toContain("Default");
  });

  it("takes the reference suite's own local browser body (its Chrome, --no-sandbox, a long connect timeout)", async () => {
    const { executablePath } = await chromiumPack();
    const answer = await start({
      modelName: "gpt-4.1-nano",
      browser: {
        type: "local",
        launchOptions: {
          headless: true,
          executablePath,
          args: ["--no-sandbox"],
          connectTimeoutMs: 60_000,
        },
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.cdpUrl).toMatch(/^ws:\/\//);
    await end(answer.body.data.sessionId);
  });

  it("a switch that runs a program beside the browser is refused even so, naming its place in args", async () => {
    const before = service.service.sessions.size;
    for (const arg of ["--renderer-cmd-prefix=/bin/sh -c id", "-GPU-Launcher=/bin/true"]) {
      const answer = await start({ browser: { launchOptions: { args: ["--mute-audio", arg] } } });
      expect(answer.status).toBe(400);
      expect(answer.body.message).toContain(
        "refused: it runs a program beside the browser, outside its sandbox; never allowed → at start body.browser.launchOptions.args.1",
      );
    }
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
        // And so do the platform's routes (the 3.7 client connects where they say).
        const platform = await service.call("GET", `/v1/sessions/${id}`);
        expect(platform.body.connectUrl).toBe(given);
        const debug = await service.call("GET", `/v1/sessions/${id}/debug`);
        expect(debug.body.wsUrl).toBe(given);
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

  it("sends cdpHeaders to the caller's browser host (its /json/version and its WebSocket), never showing their values", async () => {
    const own = await startOwnBrowser();
    const TOKEN = "Bearer caller-host-token-0123456789";
    const seen: (string | undefined)[] = [];
    // The caller's browser behind a gate that wants its token, as a hosted browser's would.
    const gate = createHttpServer(async (req, res) => {
      seen.push(req.headers.authorization);
      if (req.headers.authorization !== TOKEN) return void res.writeHead(401).end();
      const version = await fetch(`http://127.0.0.1:${own.port}${req.url}`);
      res.writeHead(version.status, { "content-type": "application/json" });
      res.end(await version.text());
    });
    gate.on("upgrade", (req, socket, head) => {
      seen.push(req.headers.authorization);
      if (req.headers.authorization !== TOKEN) {
        socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
        return;
      }
      const upstream = connect(own.port, "127.0.0.1", () => {
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) {
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        }
        upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
        upstream.write(head);
        socket.pipe(upstream).pipe(socket);
      });
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    await new Promise<void>((done) => gate.listen(0, "127.0.0.1", () => done()));
    const gateUrl = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
    try {
      const refused = await start({ browser: { type: "local", cdpUrl: gateUrl } });
      expect(refused.status).toBe(502);
      const answer = await start({
        browser: {
          type: "local",
          cdpUrl: gateUrl,
          launchOptions: { cdpHeaders: { Authorization: TOKEN } },
        },
      });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toContain("caller-host-token");
      const id = answer.body.data.sessionId as string;
      const navigated = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: pages.url("basic.html") },
      });
      expect(navigated.status, navigated.text).toBe(200);
      expect(seen.filter((h) => h === TOKEN).length).toBeGreaterThanOrEqual(2);
      expect((await end(id)).status).toBe(200);
    } finally {
      gate.closeAllConnections();
      await new Promise((done) => gate.close(done));
      await own.stop();
    }
  });

  it("refuses cdpHeaders the connection sets itself, or on more than one line", async () => {
    for (const [headers, message] of [
      [{ Host: "elsewhere" }, /no header the connection sets itself/],
      [{ "Sec-WebSocket-Key": "x" }, /no header the connection sets itself/],
      [{ "X-Token": "a\r\nInjected: 1" }, /a value on one line/],
      [{ "bad name": "x" }, /expected HTTP header names/],
    ] as const) {
      const refused = await start({
        browser: {
          cdpUrl: "ws://127.0.0.1:9/devtools/browser/x",
          launchOptions: { cdpHeaders: headers },
        },
      });
      expect(refused.status, JSON.stringify(headers)).toBe(400);
      expect(refused.body.message).toContain("browser.launchOptions.cdpHeaders");
      expect(refused.body.message).toMatch(message);
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

  it("an address nothing answers at fails the start with a 502 naming it, and leaves no session", async () => {
    const closed = await freePort();
    const before = service.service.sessions.size;
    for (const cdpUrl of [
      `ws://127.0.0.1:${closed}/devtools/browser/x`,
      `http://127.0.0.1:${closed}`,
    ]) {
      const answer = await start({
        browser: { cdpUrl, launchOptions: { connectTimeoutMs: 5_000 } },
      });
      // The caller's browser did not answer: a 502 (not the service's own 500), one readable line.
      expect(answer.status, cdpUrl).toBe(502);
      expect(answer.body.message).toContain(`127.0.0.1:${closed}`);
      expect(answer.body.message).toMatch(/could not (attach to|reach) (your|the) browser/);
      for (const noise of ["\u001b", "Call log", "\n"]) {
        expect(answer.body.message).not.toContain(noise);
      }
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
