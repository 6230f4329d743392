/**
 * A browser we launch gets an allowlisted environment: the launching process's secrets reach
 * none of its processes (browser, zygote, renderers, GPU, utilities), while PATH and what the
 * pack's binary needs do.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allowedInBrowser, browserEnv } from "../../lib/browser/browserEnv.js";
import { browserLeaks, CANARY, environOf, SECRETS } from "../support/browserSecrets.js";
import { useClients } from "../support/clients.js";
import { restoreEnvAfterwards, useBrowserProfile } from "../support/env.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

let restoreEnv: () => void = () => {};
beforeEach(() => {
  restoreEnv = restoreEnvAfterwards();
  Object.assign(process.env, SECRETS, { [CANARY.name]: CANARY.value });
});
afterEach(() => restoreEnv());

/** Opens a LOCAL client on a page with an out-of-process frame: renderers of two sites. */
async function openWithFrames() {
  const client = await clients.open();
  await client.context
    .activePage()!
    .goto(`${server.url("frames.html")}?other=${encodeURIComponent(server.otherSite)}`);
  return client;
}

function expectClean(pid: number, { processes }: { processes: number }) {
  const env = environOf(pid);
  expect(env.PATH).toBe(process.env.PATH);
  expect(env[CANARY.name]).toBe(CANARY.value);
  for (const name of Object.keys(SECRETS)) expect(env, name).not.toHaveProperty(name);
  // Nothing beyond the allowlist and what the launcher sets itself.
  const extra = Object.keys(env).filter(
    (n) => !allowedInBrowser(n) && n !== "TMPDIR" && n !== "MAC_CHROMIUM_TMPDIR",
  );
  expect(extra).toEqual([]);

  const seen = browserLeaks(pid);
  expect(seen.length).toBeGreaterThanOrEqual(processes);
  for (const p of seen) {
    expect(p.secrets, `secrets in process ${p.pid}`).toEqual([]);
    // The look would have found an inherited value: the canary and PATH are there.
    expect(p.canary, `the canary in process ${p.pid}`).toBe(true);
    expect(p.path, `PATH in process ${p.pid}`).toBe(true);
  }
}

describe("the browser's environment", () => {
  it("a LOCAL launch (multi-process): no secret in any process, PATH and the canary in each", async () => {
    const client = await openWithFrames();
    // The browser, its zygotes, renderers of two sites and the GPU or utility processes.
    expectClean(client.browserPid!, { processes: 4 });
    expect(await client.context.activePage()!.title()).toBe("Frames fixture");
  });

  describe("serverless profile (one process)", () => {
    useBrowserProfile("serverless");

    it("starts the pack's binary with its libraries and nothing secret", async () => {
      const client = await openWithFrames();
      const pid = client.browserPid!;
      expectClean(pid, { processes: 1 });
      expect(environOf(pid).LD_LIBRARY_PATH).toMatch(/wayfarer-chromium-[^/]+\/al2023\/lib/);
      // Text takes room: the browser found fonts.
      const width = await client.context.activePage()!.evaluate(() => {
        const span = document.body.appendChild(document.createElement("span"));
        span.textContent = "Hello fonts";
        return span.getBoundingClientRect().width;
      });
      expect(width).toBeGreaterThan(0);
    });
  });
});

describe("browserEnv", () => {
  it("passes only the allowlist, the binary's own variables, and the launch's temp folder", () => {
    const env = browserEnv({
      inherited: {
        PATH: "/usr/bin",
        LANG: "de_DE.UTF-8",
        LC_TIME: "C",
        FONTCONFIG_FILE: "/etc/fonts/x.conf",
        DISPLAY: ":99",
        TZ: "Europe/Berlin",
        HTTPS_PROXY: "http://user:pw@proxy:3128",
        GOOGLE_API_KEY: "AIza-secret",
        AWS_SECRET_ACCESS_KEY: "aws-secret",
        CRON_SECRET: "cron",
        TMPDIR: "/var/tmp",
        LD_PRELOAD: "/tmp/evil.so",
        ...SECRETS,
      },
      executable: { LD_LIBRARY_PATH: "/pack/lib", FONTCONFIG_PATH: "/pack" },
      tmp: "/launch/tmp",
    });
    expect(env).toEqual({
      PATH: "/usr/bin",
      LANG: "de_DE.UTF-8",
      LC_TIME: "C",
      FONTCONFIG_FILE: "/etc/fonts/x.conf",
      FONTCONFIG_PATH: "/pack",
      LD_LIBRARY_PATH: "/pack/lib",
      DISPLAY: ":99",
      TZ: "Europe/Berlin",
      // No HOME (as on a function): the launch's own folder, as the pack does with its temp dir.
      HOME: "/launch/tmp",
      TMPDIR: "/launch/tmp",
      MAC_CHROMIUM_TMPDIR: "/launch/tmp",
    });
  });

  it("keeps HOME, and Windows' variables whatever their case", () => {
    const env = browserEnv({
      inherited: { HOME: "/home/me", SystemRoot: "C:\\Windows", Path: "C:\\bin", ApiKey: "x" },
      executable: {},
      tmp: "/t",
    });
    expect(env).toMatchObject({ HOME: "/home/me", SystemRoot: "C:\\Windows", Path: "C:\\bin" });
    expect(env).not.toHaveProperty("ApiKey");
  });
});
