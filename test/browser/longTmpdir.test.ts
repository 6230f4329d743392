/**
 * Launching under a long TMPDIR, as every Mac has (`/var/folders/…/T/`, about 49 characters).
 * A system Chromium binds its singleton socket inside its own temp dir, and a Unix socket path
 * has a hard limit; each test proves the launch works there and leaves nothing behind.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packAvailable } from "../../lib/browser/chromiumPack.js";
import { systemChromium } from "../../lib/browser/executable.js";
import { launchFolderBase } from "../../lib/browser/launchFolder.js";
import { Client, ServiceInitError } from "../../lib/index.js";
import { useClients, userDataDirOf } from "../support/clients.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { failure } from "../support/failure.js";
import { commandLine, openInChild, waitUntilGone } from "../support/processes.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();
const system = systemChromium();

/** Longer than any temp dir a user is likely to have. */
const LONG = 120;
/** Where a launch folder goes when the temp dir's path is too long for Chromium's socket. */
const SHORT_LAUNCH_DIR = /^\/tmp\/wayfarer-[^/]+$/;

let root: string;
/** A real folder whose path has LONG characters or more; TMPDIR points at it during each test. */
let longTmp: string;
let restoreEnv: () => void;

beforeEach(() => {
  restoreEnv = restoreEnvAfterwards();
  root = mkdtempSync(join(tmpdir(), "wayfarer-test-long-"));
  // With an "&", which the pack's fonts.conf (XML) must escape.
  longTmp = join(root, `t&${"t".repeat(Math.max(1, LONG - root.length - 3))}`);
  mkdirSync(longTmp);
  expect(longTmp.length).toBeGreaterThanOrEqual(LONG);
  process.env.TMPDIR = longTmp;
  expect(tmpdir()).toBe(longTmp);
});

afterEach(() => {
  restoreEnv();
  rmSync(root, { recursive: true, force: true });
});

/** The TMPDIR the browser was started with: `tmp/` inside the launch folder. */
function browserTmpOf(pid: number): string {
  const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  return environ.find((v) => v.startsWith("TMPDIR="))!.slice("TMPDIR=".length);
}

/** Launch folders of ours that are still in the long temp dir. */
function launchFoldersIn(dir: string): string[] {
  return readdirSync(dir).filter((name) => /^wayfarer-(?!chromium-)/.test(name));
}

async function expectAPageWorks(client: Client): Promise<void> {
  const page = client.context.activePage()!;
  await page.goto(server.url("basic.html"));
  expect(await page.title()).toBe("Basic fixture");
}

describe("where the launch folder goes", () => {
  it("stays in a temp dir short enough for Chromium's socket", () => {
    expect(launchFolderBase("/tmp", "linux")).toBe("/tmp");
    expect(launchFolderBase("/tmp", "darwin")).toBe("/tmp");
    // 29 characters, as the lifecycle tests' scratch temp dirs: the launch fits under it.
    expect(launchFolderBase("/tmp/wayfarer-test-tmp-AbCdEf", "linux")).toBe(
      "/tmp/wayfarer-test-tmp-AbCdEf",
    );
  });

  it("goes to /tmp under a temp dir as long as macOS's own, or longer", () => {
    expect(launchFolderBase("/var/folders/7x/k2l9m0q55sx1c2vbn0r_1tmw0000gn/T", "darwin")).toBe(
      "/tmp",
    );
    expect(launchFolderBase(`/home/someone/${"t".repeat(60)}`, "linux")).toBe("/tmp");
    // Measured in bytes, as the socket address is.
    expect(launchFolderBase(`/tmp/${"é".repeat(20)}`, "linux")).toBe("/tmp");
  });

  it("stays put on Windows, whose Chromium has no singleton socket", () => {
    const long = `C:\\Users\\someone\\${"t".repeat(100)}`;
    expect(launchFolderBase(long, "win32")).toBe(long);
  });
});

describe("a TMPDIR of 120 characters", () => {
  it.skipIf(!system)(
    "launches the system Chromium, and close() leaves no process and no launch folder",
    async () => {
      const client = await clients.open({
        localBrowserLaunchOptions: { executablePath: system! },
      });
      await expectAPageWorks(client);
      const pid = client.browserPid!;
      const launchDir = dirname(browserTmpOf(pid));
      expect(launchDir).toMatch(SHORT_LAUNCH_DIR);
      expect(userDataDirOf(pid)).toBe(join(launchDir, "profile"));
      // Private to us, as in the temp dir.
      expect(statSync(launchDir).mode & 0o777).toBe(0o700);
      await client.close();
      expect(await waitUntilGone(pid)).toEqual([]);
      expect(existsSync(launchDir)).toBe(false);
      expect(launchFoldersIn(longTmp)).toEqual([]);
    },
  );

  it.skipIf(!system)(
    "uses and keeps a given userDataDir of 120 characters (CHROME_PATH's Chromium)",
    async () => {
      process.env.CHROME_PATH = system;
      const profile = join(longTmp, "my-profile");
      const client = await clients.open({ localBrowserLaunchOptions: { userDataDir: profile } });
      await expectAPageWorks(client);
      const pid = client.browserPid!;
      expect(commandLine(pid)[0]).not.toContain("wayfarer-chromium");
      expect(userDataDirOf(pid)).toBe(profile);
      const launchDir = dirname(browserTmpOf(pid));
      await client.close();
      expect(await waitUntilGone(pid)).toEqual([]);
      expect(existsSync(launchDir)).toBe(false);
      expect(readdirSync(profile).length).toBeGreaterThan(0);
      expect(launchFoldersIn(longTmp)).toEqual([]);
    },
  );

  it.skipIf(!packAvailable())("unpacks the npm-shipped Chromium there and starts it", async () => {
    // This process unpacked the pack under the usual temp dir already: a new TMPDIR is a new unpack.
    const client = new Client({ env: "LOCAL", disablePino: true, verbose: 0 });
    try {
      await client.init();
      const pid = client.browserPid!;
      const unpacked = join(longTmp, "wayfarer-chromium-147.0.0");
      expect(commandLine(pid)[0]).toBe(join(unpacked, "chromium"));
      const fontsConf = readFileSync(join(unpacked, "fonts.conf"), "utf8");
      expect(fontsConf).toContain(`<dir>${join(unpacked, "fonts").replaceAll("&", "&amp;")}</dir>`);
      await expectAPageWorks(client);
      // Its binary has no singleton socket, but the rule is the same for every browser.
      const launchDir = dirname(browserTmpOf(pid));
      expect(launchDir).toMatch(SHORT_LAUNCH_DIR);
      await client.close();
      expect(await waitUntilGone(pid)).toEqual([]);
      expect(existsSync(launchDir)).toBe(false);
      expect(launchFoldersIn(longTmp)).toEqual([]);
    } finally {
      await client.close({ force: true });
    }
  });

  it.skipIf(!packAvailable())(
    "unpacks it again when a temp cleaner removed it from under a running process",
    async () => {
      const unpacked = join(longTmp, "wayfarer-chromium-147.0.0");
      const first = await clients.open();
      expect(commandLine(first.browserPid!)[0]).toBe(join(unpacked, "chromium"));
      await first.close();
      rmSync(unpacked, { recursive: true, force: true });
      const second = await clients.open();
      expect(commandLine(second.browserPid!)[0]).toBe(join(unpacked, "chromium"));
      await expectAPageWorks(second);
    },
  );

  it("leaves no launch folder when the browser exits before it is ready", async () => {
    // Records the TMPDIR it was given, then fails as a broken Chromium would.
    const fake = join(root, "fake-chromium");
    const record = join(root, "its-tmpdir");
    writeFileSync(fake, `#!/bin/sh\nprintf '%s' "$TMPDIR" > '${record}'\nexit 1\n`, {
      mode: 0o755,
    });
    const client = new Client({
      env: "LOCAL",
      disablePino: true,
      verbose: 0,
      localBrowserLaunchOptions: { executablePath: fake },
    });
    const error = await failure(client.init());
    expect(error).toBeInstanceOf(ServiceInitError);
    expect(error.message).toContain("exited before it was ready");
    const launchDir = dirname(readFileSync(record, "utf8"));
    expect(launchDir).toMatch(SHORT_LAUNCH_DIR);
    expect(existsSync(launchDir)).toBe(false);
    expect(launchFoldersIn(longTmp)).toEqual([]);
  });

  it.skipIf(!system)(
    "a process that ends without close() ends its browser and removes the launch folder",
    async () => {
      const { child, info, exited } = await openInChild({ ...process.env, CHROME_PATH: system });
      expect(commandLine(info.pid)[0]).not.toContain("wayfarer-chromium");
      expect(existsSync(info.profile)).toBe(true);
      child.kill("SIGTERM");
      await exited;
      expect(await waitUntilGone(info.pid)).toEqual([]);
      expect(existsSync(dirname(info.profile))).toBe(false);
      expect(launchFoldersIn(longTmp)).toEqual([]);
    },
  );
});
