/**
 * `/start`'s `browser` field on a service whose operator opted into nothing: what is refused (a
 * 400 naming the field and why, no session left behind), what is ignored (a line in the session's
 * log), and what is honoured, read in the real browser's pages.
 */
import { readdirSync } from "node:fs";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveExecutable } from "../../lib/browser/executable.js";
import { startHttpsServer } from "../support/httpsServer.js";
import { useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const pages = useStaticServer();
const service = useService();

const start = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  service.call("POST", "/v1/sessions/start", { body, headers });
const end = (id: string) => service.call("POST", `/v1/sessions/${id}/end`);
const logOf = (id: string) =>
  service.service.sessions.find(id)?.lines.map((line) => line.message) ?? [];

/** A 400 whose message names `field` (as `start body.<field>`) and says `why`. */
async function refused(body: Record<string, unknown>, field: string, why: RegExp | string) {
  const before = service.service.sessions.size;
  const answer = await start(body);
  expect(answer.status, answer.text).toBe(400);
  expect(answer.body.success).toBe(false);
  expect(answer.body.message).toContain(`→ at start body.${field}`);
  expect(answer.body.message).toMatch(why);
  // Refused before anything was launched: no session, no browser.
  expect(service.service.sessions.size).toBe(before);
  return answer.body.message as string;
}

describe("browser.type", () => {
  it('"browserbase" is a 400 saying this service hosts its own browsers, whatever headers come with it', async () => {
    const platform = { "x-bb-api-key": "bb-key", "x-bb-project-id": "bb-project" };
    for (const headers of [{}, platform] as Record<string, string>[]) {
      const answer = await start({ browser: { type: "browserbase" } }, headers);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toContain(
        'this service hosts its own browsers: leave browser out, or use type "local" → at start body.browser.type',
      );
    }
  });

  it("\"local\" alone (the Python SDK's local mode sends it) is the service's own browser", async () => {
    const started = await service.call("POST", "/v1/sessions/start", {
      body: { browser: { type: "local" } },
    });
    expect(started.status).toBe(200);
    const id = started.body.data.sessionId as string;
    expect((await service.call("POST", `/v1/sessions/${id}/end`)).status).toBe(200);
  });

  it("an unknown launch option is a 400 naming it", async () => {
    await refused(
      { browser: { type: "local", launchOptions: { headless: true, kiosk: true } } },
      "browser.launchOptions",
      /Unrecognized key: "kiosk"/,
    );
  });
});

describe("launch options that reach the host", () => {
  it.each([
    ["executablePath", "/bin/sh", /runs a program/],
    ["args", ["--user-agent=x"], /Chromium switches/],
    ["ignoreDefaultArgs", true, /drops the switches/],
    ["userDataDir", "/tmp/profile", /folder on the service's host/],
    ["downloadsPath", "/tmp", /folder on the service's host/],
  ])(
    "%s is refused unless the operator lists it in WAYFARER_ALLOW_LAUNCH_OPTIONS",
    async (key, value, why) => {
      const message = await refused(
        { browser: { type: "local", launchOptions: { [key]: value } } },
        `browser.launchOptions.${key}`,
        why,
      );
      expect(message).toContain(`WAYFARER_ALLOW_LAUNCH_OPTIONS=${key}`);
    },
  );

  it("what asks for nothing new is taken without an opt-in: the service's own binary (by any link to it), switches that are all dropped — the reference suite's start body", async () => {
    const own = (await resolveExecutable({ headful: false })).path;
    const folder = await mkdtemp(join(tmpdir(), "wayfarer-own-binary-"));
    const link = join(folder, "chrome");
    await symlink(own, link);
    try {
      for (const executablePath of [own, link]) {
        const answer = await start({
          modelName: "gpt-4.1-nano",
          browser: {
            type: "local",
            launchOptions: {
              headless: true,
              executablePath,
              args: ["--no-sandbox"],
              connectTimeoutMs: 30_000,
            },
          },
        });
        expect(answer.status, answer.text).toBe(200);
        const id = answer.body.data.sessionId as string;
        expect(logOf(id)).toEqual(
          expect.arrayContaining([
            "browser.launchOptions.executablePath is this service's own browser",
            expect.stringMatching(/args: --no-sandbox dropped/),
          ]),
        );
        await end(id);
      }
      // A switch that would not be dropped still needs the opt-in, beside one that would.
      await refused(
        { browser: { launchOptions: { args: ["--no-sandbox", "--user-agent=x"] } } },
        "browser.launchOptions.args",
        /Chromium switches/,
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("empty values ask for nothing and are taken", async () => {
    const answer = await start({
      browser: { type: "local", launchOptions: { args: [], ignoreDefaultArgs: false } },
    });
    expect(answer.status, answer.text).toBe(200);
    await end(answer.body.data.sessionId);
  });

  it("a proxy is refused: the egress guard is the browser's proxy and cannot pass requests on", async () => {
    await refused(
      { browser: { launchOptions: { proxy: { server: "http://proxy.example:8080" } } } },
      "browser.launchOptions.proxy",
      /egress guard, which cannot pass them on to a proxy of yours/,
    );
  });

  it("chromiumSandbox false is refused", async () => {
    await refused(
      { browser: { launchOptions: { chromiumSandbox: false } } },
      "browser.launchOptions.chromiumSandbox",
      /never switches Chromium's sandbox off/,
    );
  });

  it("the caller's own browser (cdpUrl, either spelling) is refused unless the operator allows it", async () => {
    const own = "ws://127.0.0.1:9222/devtools/browser/x";
    const first = await refused(
      { browser: { type: "local", cdpUrl: own } },
      "browser.cdpUrl",
      /has not allowed attaching sessions to a caller's own browser/,
    );
    expect(first).toContain("WAYFARER_ALLOW_CALLER_CDP=1");
    await refused(
      { browser: { launchOptions: { cdpUrl: own } } },
      "browser.launchOptions.cdpUrl",
      /WAYFARER_ALLOW_CALLER_CDP=1/,
    );
  });
});

describe("bounds", () => {
  it.each([
    [
      { deviceScaleFactor: 5 },
      "browser.launchOptions.deviceScaleFactor",
      /expected 0.5 to 4; got 5/,
    ],
    [{ locale: "de DE; x" }, "browser.launchOptions.locale", /expected a language tag/],
    [
      { viewport: { width: 5000, height: 800 } },
      "browser.launchOptions.viewport.width",
      /at most 3840 on this service \(WAYFARER_MAX_VIEWPORT 3840x2160\); got 5000/,
    ],
    [
      { viewport: { width: 800, height: 50 } },
      "browser.launchOptions.viewport.height",
      /expected at least 100/,
    ],
    [{ connectTimeoutMs: -1 }, "browser.launchOptions.connectTimeoutMs", /positive number/],
  ])("%j is a 400", async (launchOptions, field, why) => {
    await refused({ browser: { launchOptions } }, field, why);
  });
});

describe("honoured in the real browser", () => {
  it("viewport, locale, device scale and touch reach every page; headless false, devtools and port are noted", async () => {
    const answer = await start({
      browser: {
        type: "local",
        launchOptions: {
          viewport: { width: 900.4, height: 700 },
          locale: "de-DE",
          deviceScaleFactor: 2,
          hasTouch: true,
          headless: false,
          devtools: true,
          port: 9222,
          connectTimeoutMs: 60_000,
        },
      },
      browserbaseSessionCreateParams: {
        browserSettings: { viewport: { width: 1000, height: 800 } },
      },
    });
    expect(answer.status, answer.text).toBe(200);
    const { sessionId: id, cdpUrl } = answer.body.data;
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      const navigated = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: pages.url("popup.html"), options: {} },
      });
      expect(navigated.status, navigated.text).toBe(200);
      const read = () =>
        browser
          .contexts()[0]!
          .pages()
          .map((page) =>
            page.evaluate(() => ({
              width: innerWidth,
              height: innerHeight,
              ratio: devicePixelRatio,
              language: navigator.language,
              number: new Intl.NumberFormat().format(1234.5),
              touch: navigator.maxTouchPoints,
            })),
          );
      const expected = {
        width: 900,
        height: 700,
        ratio: 2,
        language: "de-DE",
        number: "1.234,5",
        touch: 1,
      };
      expect(await Promise.all(read())).toEqual([expected]);
      // A page the session's browser opens itself gets the same.
      const opened = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: { input: { selector: "//button[@id='open']", description: "open", method: "click" } },
      });
      expect(opened.status, opened.text).toBe(200);
      await expect.poll(() => browser.contexts()[0]!.pages().length).toBe(2);
      await expect.poll(async () => (await Promise.all(read()))[1]).toEqual(expected);
      const log = logOf(id).join("\n");
      expect(log).toContain("headless false ignored");
      expect(log).toContain("devtools ignored");
      expect(log).toContain("port ignored");
      expect(log).toContain("connectTimeoutMs 60000 brought to 30000 ms");
      expect(log).toContain("browserSettings.viewport 1000x800 set aside");
    } finally {
      await browser.close();
      await end(id);
    }
  });

  it("ignoreHTTPSErrors: a self-signed site opens with it and fails without", async () => {
    const site = await startHttpsServer();
    const ids: string[] = [];
    try {
      for (const ignore of [true, false]) {
        const answer = await start({ browser: { launchOptions: { ignoreHTTPSErrors: ignore } } });
        expect(answer.status, answer.text).toBe(200);
        ids.push(answer.body.data.sessionId);
        const navigated = await service.call(
          "POST",
          `/v1/sessions/${answer.body.data.sessionId}/navigate`,
          { body: { url: site.url, options: {} } },
        );
        expect(navigated.status, `ignoreHTTPSErrors ${ignore}: ${navigated.text}`).toBe(
          ignore ? 200 : 502,
        );
      }
    } finally {
      for (const id of ids) await end(id);
      await site.close();
    }
  });
});

describe("acceptDownloads", () => {
  let server: Server;
  let origin = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/file.txt") {
        res.writeHead(200, {
          "content-type": "text/plain",
          "content-disposition": 'attachment; filename="file.txt"',
        });
        return void res.end("downloaded");
      }
      res.writeHead(200, { "content-type": "text/html" });
      res.end('<a id="get" href="/file.txt">get the file</a>');
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  const ended: string[] = [];
  afterAll(() => new Promise((done) => server.close(done)));

  /** Clicks the download link in a new session; answers the session's downloads folder's files. */
  async function download(launchOptions: Record<string, unknown>): Promise<() => string[]> {
    const answer = await start({ browser: { launchOptions } });
    expect(answer.status, answer.text).toBe(200);
    const id = answer.body.data.sessionId as string;
    const folder = service.service.sessions.find(id)!.browserFolder!;
    await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: origin, options: {} },
    });
    const clicked = await service.call("POST", `/v1/sessions/${id}/act`, {
      body: { input: { selector: "//a[@id='get']", description: "get", method: "click" } },
    });
    expect(clicked.status, clicked.text).toBe(200);
    ended.push(id);
    return () => readdirSync(`${folder}/downloads`);
  }
  it("true (as without it) saves into the session's folder; false refuses the download", async () => {
    try {
      const accepted = await download({ acceptDownloads: true });
      await expect.poll(() => accepted().length).toBe(1);
      const refusedFiles = await download({ acceptDownloads: false });
      // The same click saved a file in the session above by now; here nothing may arrive.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(refusedFiles()).toEqual([]);
    } finally {
      for (const id of ended.splice(0)) await end(id);
    }
  });
});
