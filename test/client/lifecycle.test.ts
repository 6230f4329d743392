import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chromiumPack } from "../../lib/browser/chromiumPack.js";
import {
  Client,
  type LogLine,
  MissingEnvironmentVariableError,
  ServiceEnvironmentError,
  ServiceError,
  ServiceInitError,
  ServiceNotInitializedError,
  ServiceValidationError,
  type V3Options,
} from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { failure } from "../support/failure.js";
import { freePort } from "../support/ports.js";
import { liveGroupMembers, waitUntilGone } from "../support/processes.js";

const clients = useClients();
const quiet = { disablePino: true, verbose: 0 } as const;

describe("construction", () => {
  let restoreEnv: () => void;
  beforeEach(() => {
    restoreEnv = restoreEnvAfterwards();
    delete process.env.WAYFARER_API_KEY;
  });
  afterEach(() => restoreEnv());

  it("needs a key for the remote environment, under either name, and names the variable", () => {
    for (const env of ["REMOTE", "BROWSERBASE"] as const) {
      const error = catchSync(() => new Client({ env, ...quiet }));
      expect(error).toBeInstanceOf(MissingEnvironmentVariableError);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error.message).toContain("WAYFARER_API_KEY");
    }
  });

  it("under REMOTE, refuses a model client object by name, without showing the key", () => {
    const llmClient = { modelId: "mine", doGenerate: async () => ({}) };
    const error = catchSync(
      () =>
        new Client({
          env: "REMOTE",
          apiKey: "wf-key-abcdef",
          llmClient,
          ...quiet,
        } as unknown as V3Options),
    );
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect(error.message).toContain("options.llmClient");
    expect(error.message).not.toContain("wf-key-abcdef");
  });

  it("under REMOTE on a deployment, an unset WAYFARER_API_URL is an error naming it", () => {
    const saved = { url: process.env.WAYFARER_API_URL, vercel: process.env.VERCEL };
    delete process.env.WAYFARER_API_URL;
    process.env.VERCEL = "1";
    try {
      const error = catchSync(
        () => new Client({ env: "REMOTE", apiKey: "wf-key-abcdef", ...quiet }),
      );
      expect(error).toBeInstanceOf(MissingEnvironmentVariableError);
      expect(error.message).toContain("WAYFARER_API_URL");
    } finally {
      if (saved.vercel === undefined) delete process.env.VERCEL;
      else process.env.VERCEL = saved.vercel;
      if (saved.url !== undefined) process.env.WAYFARER_API_URL = saved.url;
    }
  });

  it("refuses an unknown WAYFARER_BROWSER_PROFILE in the constructor", () => {
    process.env.WAYFARER_BROWSER_PROFILE = "cloud";
    const error = catchSync(() => new Client({ env: "LOCAL", ...quiet }));
    expect(error).toBeInstanceOf(ServiceEnvironmentError);
    expect(error.message).toContain('expected "local" or "serverless"');
  });

  it("refuses an unknown or missing env with ServiceEnvironmentError", () => {
    for (const env of ["CLOUD", undefined, "local"]) {
      const error = catchSync(() => new Client({ env, ...quiet } as unknown as V3Options));
      expect(error).toBeInstanceOf(ServiceEnvironmentError);
      expect(error.message).toContain('expected "LOCAL" or "REMOTE"');
    }
  });

  it("refuses a bad option, naming the field and what was expected", () => {
    const verbose = catchSync(
      () => new Client({ env: "LOCAL", verbose: 3 } as unknown as V3Options),
    );
    expect(verbose).toBeInstanceOf(ServiceValidationError);
    expect(verbose.message).toContain("Client options.verbose");
    const width = catchSync(
      () =>
        new Client({
          env: "LOCAL",
          localBrowserLaunchOptions: { viewport: { width: "800", height: 600 } },
        } as unknown as V3Options),
    );
    expect(width.message).toContain("Client options.localBrowserLaunchOptions.viewport.width");
    expect(width.message).toContain("expected width as a number of pixels");
  });

  it("applies the reference's defaults", () => {
    const client = new Client({ env: "LOCAL", ...quiet });
    const options = (client as unknown as { options: Record<string, unknown> }).options;
    expect(options).toMatchObject({
      selfHeal: true,
      experimental: false,
      domSettleTimeout: 30_000,
      serverCache: true,
      logInferenceToFile: false,
      dialogs: "dismiss",
      localBrowserLaunchOptions: {
        headless: true,
        devtools: false,
        ignoreHTTPSErrors: false,
        ignoreDefaultArgs: false,
      },
    });
    expect(client.browserbaseSessionID).toBeUndefined();
    expect(client.browserbaseSessionURL).toBeUndefined();
    expect(client.browserbaseDebugURL).toBeUndefined();
  });

  it("logs one warning for remote-only options under LOCAL, and for unknown launch options", () => {
    const lines: LogLine[] = [];
    new Client({
      env: "LOCAL",
      disablePino: true,
      logger: (l) => lines.push(l),
      cacheDir: "/tmp/cache",
      serverCache: false,
      localBrowserLaunchOptions: { locale: "fr-FR" } as never,
      headles: true,
    } as V3Options);
    const warnings = lines.filter((l) => l.message.startsWith("options ignored"));
    expect(warnings).toHaveLength(1);
    // cacheDir acts everywhere (the action cache); serverCache only under REMOTE.
    expect(warnings[0]!.message).toContain('serverCache acts only under env "REMOTE"');
    expect(warnings[0]!.message).not.toContain("cacheDir");
    expect(warnings[0]!.message).toContain(
      "headles, localBrowserLaunchOptions.locale are not supported",
    );
  });
});

describe("lifecycle", () => {
  it("throws ServiceNotInitializedError before init", () => {
    const client = new Client({ env: "LOCAL", ...quiet });
    const error = catchSync(() => client.context);
    expect(error).toBeInstanceOf(ServiceNotInitializedError);
    expect(error.message).toContain("context() was called before init()");
  });

  it("fails init with ServiceInitError and the cause, leaving no process and no profile behind", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "wayfarer-test-init-"));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      const missing = new Client({
        env: "LOCAL",
        ...quiet,
        localBrowserLaunchOptions: { executablePath: "/nope/chrome" },
      });
      const notThere = await failure(missing.init());
      expect(notThere).toBeInstanceOf(ServiceInitError);
      expect(notThere.message).toContain("/nope/chrome, which does not exist");

      // A binary that starts and exits at once, as a broken Chromium would.
      const broken = new Client({
        env: "LOCAL",
        ...quiet,
        localBrowserLaunchOptions: { executablePath: "/bin/false" },
      });
      const exited = await failure(broken.init());
      expect(exited).toBeInstanceOf(ServiceInitError);
      expect(exited.message).toContain("exited before it was ready");
      expect((exited as ServiceInitError).cause).toBeInstanceOf(Error);
      expect(readdirSync(scratch)).toEqual([]);
      expect(catchSync(() => broken.context)).toBeInstanceOf(ServiceError);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("init twice is one launch; close is idempotent and safe twice at once", async () => {
    const client = new Client({ env: "LOCAL", ...quiet });
    await Promise.all([client.init(), client.init()]);
    const pid = client.browserPid!;
    expect(liveGroupMembers(pid).length).toBeGreaterThan(0);
    await Promise.all([client.close(), client.close()]);
    await client.close();
    expect(await waitUntilGone(pid)).toEqual([]);
    const after = await failure(client.init());
    expect(after.message).toContain("this client was closed");
  });

  it("close({force: true}) ends a browser that will not close gracefully, without waiting for it", async () => {
    const client = new Client({ env: "LOCAL", ...quiet });
    await client.init();
    const pid = client.browserPid!;
    // A frozen browser never answers Browser.close: the graceful path would wait out its bound.
    process.kill(pid, "SIGSTOP");
    const started = Date.now();
    const graceful = client.close();
    await client.close({ force: true });
    await graceful;
    expect(await waitUntilGone(pid)).toEqual([]);
    // The graceful path alone takes at least its 3 s bound on a frozen browser.
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("close({force: true}) during init() ends the launch under way; init fails, nothing is left", async () => {
    const client = new Client({ env: "LOCAL", ...quiet });
    const init = client.init();
    await new Promise((r) => setTimeout(r, 30));
    await client.close({ force: true });
    const error = await failure(init);
    expect(error).toBeInstanceOf(ServiceInitError);
    expect(error.message).toMatch(/close\(\) was called/);
    expect(client.browserPid).toBeUndefined();
    expect((await failure(client.init())).message).toContain("this client was closed");
  });

  it("leaves nothing in the temp dir after a close, and none after a forced close during init", async () => {
    await inScratchTmp(async (left) => {
      const client = new Client({ env: "LOCAL", ...quiet });
      await client.init();
      await client.context.activePage()!.goto("data:text/html,<title>x</title>");
      await client.close();
      expect(left()).toEqual([]);

      const interrupted = new Client({ env: "LOCAL", ...quiet });
      const init = interrupted.init();
      await launchUnderWay(left);
      await interrupted.close({ force: true });
      // Nothing left the moment close() resolves: not the profile, not Chromium's temp files.
      expect(left()).toEqual([]);
      expect(await failure(init)).toBeInstanceOf(ServiceInitError);
    });
  });

  it("with keepAlive, a forced close during init still ends the browser (it never became ready)", async () => {
    await inScratchTmp(async (left) => {
      const client = new Client({ env: "LOCAL", ...quiet, keepAlive: true });
      const init = client.init();
      await launchUnderWay(left);
      await client.close({ force: true });
      expect(await failure(init)).toBeInstanceOf(ServiceInitError);
      expect(client.connectURL).toBeUndefined();
      expect(left()).toEqual([]);
      // The after-each check proves no process of this test is still running.
    });
  });

  it("a forced close does not wait for an attach that hangs", async () => {
    // Accepts the connection and never answers the WebSocket handshake.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const client = new Client({
        env: "LOCAL",
        ...quiet,
        localBrowserLaunchOptions: { cdpUrl: `ws://127.0.0.1:${port}/devtools/browser/x` },
      });
      const init = client.init();
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      await client.close({ force: true });
      expect(await failure(init)).toBeInstanceOf(ServiceInitError);
      // Without the abort, init would hold close for its whole 30 s.
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      silent.close();
    }
  });

  it("repeats the init error on a second init() after a failure", async () => {
    const client = new Client({
      env: "LOCAL",
      ...quiet,
      localBrowserLaunchOptions: { executablePath: "/nope" },
    });
    const first = await failure(client.init());
    const second = await failure(client.init());
    expect(second).toBe(first);
    expect(catchSync(() => client.context)).toBeInstanceOf(ServiceNotInitializedError);
  });

  it("close() before init does nothing and does not throw", async () => {
    const client = new Client({ env: "LOCAL", ...quiet });
    await client.close();
    expect(client.browserPid).toBeUndefined();
  });

  it("starts with empty history and zero metrics", async () => {
    const client = await clients.open();
    expect(await client.history).toEqual([]);
    const metrics = await client.metrics;
    expect(Object.keys(metrics)).toHaveLength(25);
    expect(Object.values(metrics).every((v) => v === 0)).toBe(true);
  });

  it("keeps a credential in cdpUrl out of the init error and the logs", async () => {
    const lines: LogLine[] = [];
    const port = await freePort();
    const client = new Client({
      env: "LOCAL",
      disablePino: true,
      verbose: 2,
      logger: (l) => lines.push(l),
      localBrowserLaunchOptions: {
        cdpUrl: `ws://127.0.0.1:${port}/devtools/browser/x?token=cdp-token-778899`,
      },
    });
    const error = await failure(client.init());
    expect(error).toBeInstanceOf(ServiceInitError);
    const everything = JSON.stringify({
      message: error.message,
      stack: error.stack,
      cause: String((error as ServiceInitError).cause),
      lines,
    });
    expect(everything).not.toContain("cdp-token-778899");
  });

  it("takes URL credentials and known secrets out of page errors and history", async () => {
    const client = await clients.open({ apiKey: "wf-known-key-13579" });
    const page = client.context.activePage()!;
    const port = await freePort();
    const error = await failure(
      page.goto(`http://user:url-pass-2468@127.0.0.1:${port}/?k=wf-known-key-13579`),
    );
    expect(error.message).toMatch(/ERR_CONNECTION_REFUSED/);
    expect(`${error.message}${error.stack}`).not.toMatch(/url-pass-2468|wf-known-key-13579/);
    // Chromium shows its error page for the refused connection; let it finish first.
    await page.playwrightPage.waitForURL(/^chrome-error:/);
    await page.playwrightPage.waitForLoadState();
    const locatorError = await failure(page.click("#wf-known-key-13579", { timeout: 200 }));
    expect(locatorError.message).not.toContain("wf-known-key-13579");
    expect(JSON.stringify(await client.history)).not.toMatch(/url-pass-2468|wf-known-key-13579/);
  });

  it("never puts a secret option into a log line or an error", async () => {
    const lines: LogLine[] = [];
    const client = await clients.open({
      verbose: 2,
      logger: (l) => lines.push(l),
      apiKey: "wf-service-key-123456",
      model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-model-key-654321" },
    });
    await client.context.activePage()!.goto("data:text/html,<title>x</title>");
    await client.close();
    const all = JSON.stringify(lines);
    expect(lines.length).toBeGreaterThan(2);
    expect(all).not.toContain("wf-service-key-123456");
    expect(all).not.toContain("sk-model-key-654321");
  });
});

function catchSync(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to throw, and it returned");
}

/**
 * Runs `fn` with the system temp dir pointed at a fresh folder of its own; `left()` lists what is
 * in it. The pack is unpacked in the temp dir a process has: a folder of links to where it is
 * unpacked already stands in for it, so the launches here start at once and leave only that.
 */
async function inScratchTmp(fn: (left: () => string[]) => Promise<void>): Promise<void> {
  const unpacked = dirname((await chromiumPack()).executablePath);
  const scratch = mkdtempSync(join(tmpdir(), "wayfarer-test-tmp-"));
  const standIn = join(scratch, basename(unpacked));
  mkdirSync(standIn, { mode: 0o755 });
  for (const name of readdirSync(unpacked)) symlinkSync(join(unpacked, name), join(standIn, name));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
  try {
    await fn(() => readdirSync(scratch).filter((name) => name !== basename(unpacked)));
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Resolves once a launch has made its folder: the browser is starting, not ready yet. */
async function launchUnderWay(left: () => string[]): Promise<void> {
  const end = Date.now() + 10_000;
  while (left().length === 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 1));
  }
}
