import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { systemChromium } from "../../lib/browser/executable.js";
import { terminateGroup } from "../../lib/browser/processGroup.js";
import { Client, type LogLine } from "../../lib/index.js";
import { startOwnBrowser } from "../support/browserProcess.js";
import { useClients, userDataDirOf } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { startHttpsServer } from "../support/httpsServer.js";
import { freePort } from "../support/ports.js";
import { commandLine, liveGroupMembers, waitUntilGone } from "../support/processes.js";
import { startProxy } from "../support/proxyServer.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();
/** Generous: DevTools opens slowly under Xvfb on a slow machine; the poll ends once it is there. */
const POLL = { timeout: 15_000, interval: 100 };

const system = systemChromium();
/** "156." (the UA carries only the major version) from "Chromium 156.0.8078.108 built on Debian ...". */
const systemVersion = () =>
  `${/(\d+)\.\d+\.\d+\.\d+/.exec(execFileSync(system!, ["--version"], { encoding: "utf8" }))?.[1]}.`;
const canRunHeadful = Boolean(system && process.env.DISPLAY);
/** The HTTPS fixture's certificate is made by openssl (installed by .ci/run). */
const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

async function userAgent(client: Client): Promise<string> {
  return client.context.activePage()!.evaluate(() => navigator.userAgent);
}

function argsOf(client: Client): string[] {
  return commandLine(client.browserPid!);
}

describe("launch options", () => {
  it("is headless by default, with the npm-shipped Chromium and the reference's default arguments", async () => {
    const client = await clients.open();
    expect(await userAgent(client)).toContain("HeadlessChrome");
    const args = argsOf(client);
    expect(args[0]).toMatch(/wayfarer-chromium-147\.0\.0\/chromium$/);
    for (const flag of [
      "--remote-allow-origins=*",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-dev-shm-usage",
      "--site-per-process",
    ]) {
      expect(args).toContain(flag);
    }
    expect(args.indexOf("--no-first-run")).toBeLessThan(
      args.indexOf("--disable-background-networking"),
    );
  });

  it.skipIf(!system)(
    "uses executablePath, then CHROME_PATH, before the npm-shipped Chromium",
    async () => {
      const viaOption = await clients.open({
        localBrowserLaunchOptions: { executablePath: system! },
      });
      expect(await userAgent(viaOption)).toContain(`Chrome/${systemVersion()}`);
      process.env.CHROME_PATH = system;
      try {
        const viaVariable = await clients.open();
        expect(await userAgent(viaVariable)).toContain(`Chrome/${systemVersion()}`);
        expect(argsOf(viaVariable)[0]).not.toContain("wayfarer-chromium");
      } finally {
        delete process.env.CHROME_PATH;
      }
    },
  );

  it("listens on a fixed debugging port when asked", async () => {
    const port = await freePort();
    const client = await clients.open({ localBrowserLaunchOptions: { port } });
    expect(client.connectURL).toMatch(
      new RegExp(`^ws://127\\.0\\.0\\.1:${port}/devtools/browser/`),
    );
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    expect(version.webSocketDebuggerUrl).toBe(client.connectURL);
  });

  it("passes extra args after the defaults, and refuses ones that switch web security off", async () => {
    const lines: LogLine[] = [];
    const client = await clients.open({
      verbose: 1,
      logger: (l) => lines.push(l),
      localBrowserLaunchOptions: {
        args: [
          "--user-agent=WayfarerTest/1.0",
          "--disable-web-security",
          "--disable-features=IsolateOrigins,Foo",
        ],
      },
    });
    expect(await userAgent(client)).toBe("WayfarerTest/1.0");
    const args = argsOf(client);
    expect(args).not.toContain("--disable-web-security");
    const disabled = args.find((a) => a.startsWith("--disable-features="))!;
    expect(disabled.split("=")[1]!.split(",")).toEqual(
      expect.arrayContaining(["Translate", "Foo"]),
    );
    expect(disabled).not.toContain("IsolateOrigins");
    const warning = lines.find((l) => l.message.includes("refused launch arguments"));
    expect(warning?.auxiliary?.refused).toEqual([
      "--disable-web-security",
      "--disable-features=IsolateOrigins",
    ]);
  });

  it("drops every default argument with ignoreDefaultArgs: true, but not what it needs to drive the browser", async () => {
    const client = await clients.open({ localBrowserLaunchOptions: { ignoreDefaultArgs: true } });
    const args = argsOf(client);
    for (const flag of [
      "--no-first-run",
      "--site-per-process",
      "--remote-allow-origins=*",
      "--disable-sync",
    ]) {
      expect(args).not.toContain(flag);
    }
    expect(args.some((a) => a.startsWith("--remote-debugging-port="))).toBe(true);
    await client.context.activePage()!.goto(server.url("basic.html"));
    expect(await client.context.activePage()!.title()).toBe("Basic fixture");
  });

  it("drops exactly the listed arguments with ignoreDefaultArgs: [..]", async () => {
    const client = await clients.open({
      localBrowserLaunchOptions: { ignoreDefaultArgs: ["--site-per-process", "--hide-scrollbars"] },
    });
    const args = argsOf(client);
    expect(args).not.toContain("--site-per-process");
    expect(args).not.toContain("--hide-scrollbars");
    expect(args).toContain("--no-first-run");
    expect(args).toContain("--headless");
  });

  it("keeps a given userDataDir after close, and uses it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wayfarer-test-profile-"));
    try {
      const client = await clients.open({ localBrowserLaunchOptions: { userDataDir: dir } });
      expect(userDataDirOf(client.browserPid!)).toBe(dir);
      await client.close();
      expect(existsSync(dir)).toBe(true);
      expect(readdirSync(dir).length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("makes a fresh temporary userDataDir by default and removes it on close", async () => {
    const client = await clients.open();
    const dir = userDataDirOf(client.browserPid!)!;
    expect(dir).toMatch(/\/wayfarer-[^/]+\/profile$/);
    expect(existsSync(dir)).toBe(true);
    await client.close();
    expect(existsSync(dirname(dir))).toBe(false);
  });

  it("sets the viewport of the first page and of new ones", async () => {
    const client = await clients.open({
      localBrowserLaunchOptions: { viewport: { width: 800, height: 600 } },
    });
    const size = () => ({ w: window.innerWidth, h: window.innerHeight });
    expect(await client.context.activePage()!.evaluate(size)).toEqual({ w: 800, h: 600 });
    const second = await client.context.newPage();
    expect(await second.evaluate(size)).toEqual({ w: 800, h: 600 });
  });

  it("routes through a proxy that asks for credentials, and never logs the password", async () => {
    const proxy = await startProxy({ username: "wf-user", password: "proxy-secret-9731" });
    const lines: LogLine[] = [];
    try {
      const client = await clients.open({
        verbose: 2,
        logger: (l) => lines.push(l),
        localBrowserLaunchOptions: {
          proxy: {
            server: proxy.server,
            bypass: "bypassed.test",
            username: "wf-user",
            password: "proxy-secret-9731",
          },
        },
      });
      const page = client.context.activePage()!;
      await page.goto("http://proxied.test/path");
      expect(await page.title()).toBe("via proxy");
      expect(proxy.seen.some((r) => r.url === "http://proxied.test/path" && r.authorization)).toBe(
        true,
      );
      expect(argsOf(client)).toContain("--proxy-bypass-list=bypassed.test");
      await client.close();
      expect(lines.length).toBeGreaterThan(0);
      expect(JSON.stringify(lines)).not.toContain("proxy-secret-9731");
    } finally {
      await proxy.close();
    }
  });

  it.skipIf(!hasOpenssl)(
    "accepts a self-signed certificate only with ignoreHTTPSErrors",
    async () => {
      const https = await startHttpsServer();
      try {
        const strict = await clients.open();
        const error = await failure(strict.context.activePage()!.goto(https.url));
        expect(error.message).toMatch(/ERR_CERT/);
        const lenient = await clients.open({
          localBrowserLaunchOptions: { ignoreHTTPSErrors: true },
        });
        await lenient.context.activePage()!.goto(https.url);
        expect(await lenient.context.activePage()!.title()).toBe("secure fixture");
      } finally {
        await https.close();
      }
    },
  );

  it.skipIf(!canRunHeadful)(
    "runs headful with headless: false (system Chromium under a display)",
    async () => {
      const client = await clients.open({ localBrowserLaunchOptions: { headless: false } });
      expect(await userAgent(client)).toContain(`Chrome/${systemVersion()}`);
      expect(argsOf(client)).not.toContain("--headless");
      expect(await userAgent(client)).not.toContain("HeadlessChrome");
    },
  );

  it.skipIf(!canRunHeadful)(
    "opens DevTools with devtools: true, which implies headful",
    async () => {
      const client = await clients.open({ localBrowserLaunchOptions: { devtools: true } });
      const args = argsOf(client);
      expect(args).toContain("--auto-open-devtools-for-tabs");
      expect(args).not.toContain("--headless");
      const session = await client.context
        .activePage()!
        .playwrightPage.context()
        .browser()!
        .newBrowserCDPSession();
      await expect
        .poll(async () => {
          const { targetInfos } = await session.send("Target.getTargets");
          return targetInfos.some((t) => t.url.startsWith("devtools://"));
        }, POLL)
        .toBe(true);
      await session.detach();
    },
  );
});

describe("attaching", () => {
  it("attaches with cdpUrl (ws or http), leaves that browser running by default, ends it with keepAlive: false", async () => {
    const own = await startOwnBrowser();
    try {
      const attached = await clients.open({
        localBrowserLaunchOptions: { cdpUrl: own.wsEndpoint },
      });
      expect(attached.browserPid).toBeUndefined();
      const page = attached.context.pages()[0]!;
      await page.goto(server.url("basic.html"));
      await attached.close();
      expect(liveGroupMembers(own.pid).length).toBeGreaterThan(0);

      const again = new Client({
        env: "LOCAL",
        disablePino: true,
        keepAlive: false,
        localBrowserLaunchOptions: { cdpUrl: `http://127.0.0.1:${own.port}` },
      });
      await again.init();
      expect(again.connectURL).toBe(own.wsEndpoint);
      expect(again.context.pages()[0]!.url()).toBe(server.url("basic.html"));
      await again.close();
      expect(await waitUntilGone(own.pid)).toEqual([]);
    } finally {
      await own.stop();
    }
  });

  it("fails to attach to a closed port in one readable line: no escape codes, no call log", async () => {
    const lines: LogLine[] = [];
    const client = new Client({
      env: "LOCAL",
      disablePino: true,
      verbose: 2,
      logger: (l: LogLine) => lines.push(l),
      localBrowserLaunchOptions: {
        cdpUrl: `ws://127.0.0.1:${await freePort()}/devtools/browser/x`,
      },
    });
    const error = await failure(client.init());
    expect(error.name).toBe("ServiceInitError");
    expect(error.message).toMatch(/^init\(\) failed: .*ECONNREFUSED/);
    expect(error.message).not.toContain("\u001b");
    expect(error.message).not.toContain("Call log");
    expect(error.message).not.toContain("\n");
    // What Playwright said in full is in a debug line.
    expect(JSON.stringify(lines.filter((l) => l.level === 2))).toContain("Call log");
    await client.close();
  });

  it("with keepAlive: true leaves the launched browser running; connectURL attaches to it again", async () => {
    const first = new Client({ env: "LOCAL", disablePino: true, keepAlive: true });
    await first.init();
    const pid = first.browserPid!;
    const profile = userDataDirOf(pid)!;
    try {
      await first.context.activePage()!.goto(server.url("second.html"));
      await first.close();
      expect(liveGroupMembers(pid).length).toBeGreaterThan(0);
      expect(first.connectURL).toMatch(/^ws:\/\//);

      const second = new Client({
        env: "LOCAL",
        disablePino: true,
        keepAlive: false,
        localBrowserLaunchOptions: { cdpUrl: first.connectURL! },
      });
      await second.init();
      expect(await second.context.pages()[0]!.title()).toBe("Second fixture");
      await second.close();
      expect(await waitUntilGone(pid)).toEqual([]);
    } finally {
      terminateGroup(pid);
      rmSync(dirname(profile), { recursive: true, force: true });
    }
  });
});
