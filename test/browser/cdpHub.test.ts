import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CdpMessage, HubClient } from "../../lib/browser/cdpHub.js";
import { type LaunchedBrowser, launchBrowser } from "../../lib/browser/launch.js";
import { LocalBrowserLaunchOptionsSchema } from "../../lib/options.js";
import { liveGroupMembers, waitUntilGone } from "../support/processes.js";
import { useStaticServer } from "../support/staticServer.js";

const pages = useStaticServer();

/** A client of the hub with a way to wait for its answers and events. */
async function clientOf(launched: LaunchedBrowser) {
  const heard: CdpMessage[] = [];
  const waiters: (() => void)[] = [];
  let closedWith: string | undefined;
  const client: HubClient = await launched.hub!.connect({
    receive: (message) => {
      heard.push(message);
      for (const wake of waiters.splice(0)) wake();
    },
    closed: (reason) => {
      closedWith = reason;
    },
  });
  let id = 0;
  const until = async (found: () => CdpMessage | undefined, what: string) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const message = found();
      if (message) return message;
      if (Date.now() > deadline) throw new Error(`no ${what} within 10 s`);
      await new Promise<void>((wake) => {
        waiters.push(wake);
        setTimeout(wake, 100);
      });
    }
  };
  return {
    heard,
    client,
    closedWith: () => closedWith,
    /** Sends with the id this client chooses (clients pick their own: they may collide). */
    async send(method: string, params: Record<string, unknown> = {}, sessionId?: string) {
      const sent = ++id;
      client.send({ id: sent, method, params, ...(sessionId ? { sessionId } : {}) });
      return until(() => heard.find((m) => m.id === sent), `answer to ${method}`);
    },
    event: (method: string) => until(() => heard.find((m) => m.method === method), method),
  };
}

function launchOverPipe(): Promise<LaunchedBrowser> {
  return launchBrowser({
    options: LocalBrowserLaunchOptionsSchema.parse({
      args: ["--disable-background-networking", "--disable-component-update", "--disable-sync"],
    }),
    profile: "local",
    timeoutMs: 20_000,
    pipe: true,
  });
}

describe("a browser driven over its pipe", () => {
  // One browser per test: the after-each check wants every process of a test gone with it.
  let launched: LaunchedBrowser;
  beforeEach(async () => {
    launched = await launchOverPipe();
  });
  afterEach(() => launched?.terminate());

  it("listens on no port and has no DevToolsActivePort file; our Playwright drives it", async () => {
    expect(launched.wsEndpoint).toBeUndefined();
    expect(launched.args).toContain("--remote-debugging-pipe");
    expect(launched.args.some((a) => a.startsWith("--remote-allow-origins"))).toBe(false);
    expect(() => readFileSync(`${launched.userDataDir}/DevToolsActivePort`)).toThrow();
    // No socket of any process of the browser listens (TCP state 0A) on any address.
    const listening =
      readFileSync("/proc/net/tcp", "utf8") + readFileSync("/proc/net/tcp6", "utf8");
    const inodes = new Set(
      listening
        .split("\n")
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .filter((f) => f[3] === "0A")
        .map((f) => f[9]),
    );
    const ours = liveGroupMembers(launched.pid!).flatMap((pid) => socketInodes(pid));
    expect(ours.filter((inode) => inodes.has(inode))).toEqual([]);

    const page = await launched.browser.contexts()[0]!.newPage();
    await page.goto(pages.url("basic.html"));
    expect(await page.title()).not.toBe("");
  });

  it("keeps two clients apart: their own ids, their own sessions, our Playwright untouched", async () => {
    await launched.browser.contexts()[0]!.newPage();
    const a = await clientOf(launched);
    const b = await clientOf(launched);
    // Both number from 1, as separate connections would.
    const [va, vb] = await Promise.all([
      a.send("Browser.getVersion"),
      b.send("Browser.getVersion"),
    ]);
    expect(va.result?.product).toBe(vb.result?.product);
    const targets = await a.send("Target.getTargets");
    const pageTarget = (targets.result!.targetInfos as { type: string; targetId: string }[]).find(
      (t) => t.type === "page",
    )!;
    const attached = await a.send("Target.attachToTarget", {
      targetId: pageTarget.targetId,
      flatten: true,
    });
    const sessionId = attached.result!.sessionId as string;
    const evaluated = await a.send(
      "Runtime.evaluate",
      { expression: "6 * 7", returnByValue: true },
      sessionId,
    );
    expect(evaluated.sessionId).toBe(sessionId);
    expect((evaluated.result!.result as { value: number }).value).toBe(42);
    // b cannot speak on a's session, and learns nothing of it.
    const stolen = await b.send("Runtime.evaluate", { expression: "1" }, sessionId);
    expect(stolen.error?.message).toBe("Session with given id not found.");
    expect(b.heard.filter((m) => m.sessionId === sessionId)).toEqual([stolen]);
    // Playwright's own page still answers.
    const page =
      launched.browser.contexts()[0]!.pages()[0] ??
      (await launched.browser.contexts()[0]!.newPage());
    expect(await page.evaluate(() => 1 + 1)).toBe(2);
    a.client.close();
    b.client.close();
  });

  it("lets go of what a client enabled when it leaves: a request it intercepted goes on", async () => {
    const page = await launched.browser.contexts()[0]!.newPage();
    const a = await clientOf(launched);
    const targets = await a.send("Target.getTargets");
    const target = (targets.result!.targetInfos as { type: string; targetId: string }[]).find(
      (t) => t.type === "page",
    )!;
    const { result } = await a.send("Target.attachToTarget", {
      targetId: target.targetId,
      flatten: true,
    });
    await a.send("Fetch.enable", { patterns: [{ urlPattern: "*" }] }, result!.sessionId as string);
    const loading = page.goto(pages.url("basic.html?held"), { timeout: 10_000 });
    await a.event("Fetch.requestPaused");
    a.client.close();
    const response = await loading;
    expect(response?.status()).toBe(200);
  });

  it("tells its clients when the browser ends", async () => {
    const a = await clientOf(launched);
    await a.send("Browser.getVersion");
    await launched.terminate();
    await waitUntilGone(launched.pid!);
    expect(a.closedWith()).toBe("the browser ended");
  });
});

function socketInodes(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter((inode): inode is string => inode !== undefined);
  } catch {
    return [];
  }
}
