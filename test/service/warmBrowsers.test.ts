/**
 * Warm browsers (WAYFARER_WARM_BROWSERS), on a real service listening on 127.0.0.1 with real
 * Chromiums: a `/start` with one waiting is served by it (the session's browser is the process
 * that waited), the pool fills again, each session's browser is its own (no process, cookie or
 * storage of another), the waiting browsers count against WAYFARER_MAX_SESSIONS, 0 launches at
 * each start as before, a start that asks for launch options launches its own, and a browser
 * killed while it waits is never handed out. SIGTERM: warmPoolStop.test.ts.
 */

import { readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egressWorkerPid } from "../../lib/browser/egressHost.js";
import { terminateGroup } from "../../lib/browser/processGroup.js";
import { serviceConfig } from "../../lib/service/config.js";
import { loadKeys } from "../../lib/service/keys.js";
import { memoryIsShort } from "../../lib/service/memoryAvailable.js";
import { buildService, type Service } from "../../lib/service/server.js";
import { machineWarmBrowsers } from "../../lib/service/warmBrowsers.js";
import { commandLineIfLive, liveDescendants, stillLive } from "../support/processes.js";
import { scrape } from "../support/prometheus.js";
import { useStaticServer } from "../support/staticServer.js";

const pages = useStaticServer();
const KEY = "key-warm-0123456789abcdef";

interface Running {
  service: Service;
  url: string;
  call(path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Starts a session; its id, and its browser's PID. */
  start(body?: Record<string, unknown>): Promise<{ id: string; pid: number }>;
  /** Until `count` browsers wait in the pool; their PIDs. */
  warm(count: number): Promise<number[]>;
  /** The counter of sessions by where their browser came from. */
  browsersFrom(from: "warm" | "launched"): Promise<number>;
  /** What the service said in its log so far. */
  warnings: string[];
}

/** A service that listens (which is when its pool fills) for the length of `test`, then stopped. */
async function withService(
  env: Record<string, string>,
  test: (running: Running) => Promise<void>,
  overrides: { memoryShort?: () => boolean } = {},
): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-warm-"));
  const warnings: string[] = [];
  const config = {
    ...serviceConfig({ PORT: "0", WAYFARER_ALLOW_HOSTS: "127.0.0.1", ...env }),
    dataDir,
    warn: (line: string) => void warnings.push(line),
    ...overrides,
  };
  const service = buildService(config, await loadKeys(`alpha:${KEY}`, dataDir, () => {}));
  try {
    const url = await service.listen("127.0.0.1", 0);
    const call = async (path: string, body: unknown = {}) => {
      const answer = await fetch(`${url}/v1${path}`, {
        method: "POST",
        headers: { "x-wf-api-key": KEY, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: answer.status, body: (await answer.json()) as any };
    };
    await test({
      service,
      url,
      call,
      async start(body = {}) {
        const started = await call("/sessions/start", body);
        expect(started.status, JSON.stringify(started.body)).toBe(200);
        const id = started.body.data.sessionId as string;
        return { id, pid: service.sessions.browserPidOf(id)! };
      },
      async warm(count) {
        const pool = service.sessions.warmBrowsers!;
        const until = Date.now() + 45_000;
        while (pool.ready < count && Date.now() < until)
          await new Promise((r) => setTimeout(r, 50));
        expect(pool.ready, `warm browsers waiting (warnings: ${warnings.join("; ")})`).toBe(count);
        return pool.pids;
      },
      async browsersFrom(from) {
        return (await scrape(url)).value("wayfarer_session_browsers_total", { from }) ?? 0;
      },
      warnings,
    });
  } finally {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A process's state letter from /proc (Z: dead, not yet reaped). */
const processState = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2)[0];
};

/** What the session's page says of itself, read in its browser. */
const inPage = <T>(running: Running, id: string, script: () => T): Promise<T> =>
  running.service.sessions.find(id)!.activePage()!.playwrightPage.evaluate(script);

describe("warm browsers", () => {
  it("a /start with one waiting is served by it, and the pool fills again with a new browser", async () => {
    await withService({ WAYFARER_WARM_BROWSERS: "1" }, async (running) => {
      const [waited] = await running.warm(1);
      const session = await running.start();
      // The very process that waited: its launch was done before the start.
      expect(session.pid).toBe(waited);
      expect(await running.browsersFrom("warm")).toBe(1);
      expect(await running.browsersFrom("launched")).toBe(0);
      // A blank browser: one page, nothing in its history.
      expect(await inPage(running, session.id, () => [location.href, history.length])).toEqual([
        "about:blank",
        1,
      ]);
      // It browses as any session's browser does, behind the egress guard.
      const went = await running.call(`/sessions/${session.id}/navigate`, {
        url: pages.url("basic.html"),
      });
      expect(went.status).toBe(200);
      const [next] = await running.warm(1);
      expect(next).not.toBe(waited);
      expect(running.service.sessions.size).toBe(1);
    });
  });

  it("each session gets a browser of its own: no shared process, and nothing one stored is seen by the next", async () => {
    await withService({ WAYFARER_WARM_BROWSERS: "1" }, async (running) => {
      await running.warm(1);
      const first = await running.start();
      const page = pages.url("basic.html");
      expect((await running.call(`/sessions/${first.id}/navigate`, { url: page })).status).toBe(
        200,
      );
      await inPage(running, first.id, () => {
        // biome-ignore lint/suspicious/noDocumentCookie: a cookie as a site sets one
        document.cookie = "seen=yes; max-age=3600";
        localStorage.setItem("seen", "yes");
        sessionStorage.setItem("seen", "yes");
      });
      const firstFolder = running.service.sessions.find(first.id)!.browserFolder;
      expect((await running.call(`/sessions/${first.id}/end`)).status).toBe(200);
      // Ended with its session, never given back.
      expect(await stillLive([first.pid])).toEqual([]);

      await running.warm(1);
      const second = await running.start();
      expect(await running.browsersFrom("warm")).toBe(2);
      expect(second.pid).not.toBe(first.pid);
      expect(running.service.sessions.find(second.id)!.browserFolder).not.toBe(firstFolder);
      expect((await running.call(`/sessions/${second.id}/navigate`, { url: page })).status).toBe(
        200,
      );
      expect(
        await inPage(running, second.id, () => [
          document.cookie,
          localStorage.getItem("seen"),
          sessionStorage.getItem("seen"),
          history.length,
        ]),
      ).toEqual(["", null, null, 2]);

      // Two sessions at once: the second (the pool empty meanwhile) is launched, and is another.
      const third = await running.start();
      expect(third.pid).not.toBe(second.pid);
    });
  });

  it("counts against WAYFARER_MAX_SESSIONS: waiting browsers stay within the room, and a fresh launch takes a waiting one's place", async () => {
    await withService(
      { WAYFARER_WARM_BROWSERS: "2", WAYFARER_MAX_SESSIONS: "2" },
      async (running) => {
        const sessions = running.service.sessions;
        const browsers = () => sessions.size + sessions.warmBrowsers!.held;
        await running.warm(2);
        // Waiting browsers are room for sessions, not sessions.
        const ready = await fetch(`${running.url}/readyz`).then((r) => r.json());
        expect(ready.sessions).toEqual({ live: 0, capacity: 2, room: 2 });

        const a = await running.start();
        await new Promise((r) => setTimeout(r, 500));
        // One session and one waiting: the second refill would pass the capacity.
        expect(browsers()).toBeLessThanOrEqual(2);
        await running.warm(1);

        // A start that needs its own launch (a locale is a launch switch) ends the waiting one.
        const [waiting] = sessions.warmBrowsers!.pids;
        const b = await running.start({
          browser: { type: "local", launchOptions: { locale: "de-DE" } },
        });
        expect(b.pid).not.toBe(waiting);
        expect(await stillLive([waiting!])).toEqual([]);
        expect(sessions.warmBrowsers!.held).toBe(0);
        expect(await running.browsersFrom("launched")).toBe(1);
        const full = await fetch(`${running.url}/readyz`);
        expect(full.status).toBe(503);
        expect((await running.call("/sessions/start")).status).toBe(503);

        // A session ends: its room goes back to the pool.
        expect((await running.call(`/sessions/${a.id}/end`)).status).toBe(200);
        await running.warm(1);
        expect(browsers()).toBe(2);
      },
    );
  });

  it("0 turns it off: no browser before a /start, and each /start launches its own", async () => {
    await withService({ WAYFARER_WARM_BROWSERS: "0" }, async (running) => {
      expect(running.service.sessions.warmBrowsers).toBeUndefined();
      await new Promise((r) => setTimeout(r, 1_000));
      // No browser (the egress guard's worker, egressHost.ts, lives as long as this process).
      expect(liveDescendants(process.pid).filter((pid) => pid !== egressWorkerPid())).toEqual([]);
      const session = await running.start();
      expect(session.pid).toBeGreaterThan(0);
      expect(await running.browsersFrom("launched")).toBe(1);
      expect((await scrape(running.url)).value("wayfarer_warm_browsers")).toBe(0);
    });
  });

  it("a /start with launch options launches its own; one with a viewport takes a waiting one, sized to it", async () => {
    await withService({ WAYFARER_WARM_BROWSERS: "1" }, async (running) => {
      const [waiting] = await running.warm(1);
      const german = await running.start({
        browser: { type: "local", launchOptions: { locale: "de-DE" } },
      });
      expect(german.pid).not.toBe(waiting);
      expect(await inPage(running, german.id, () => navigator.language)).toBe("de-DE");
      expect(running.service.sessions.warmBrowsers!.pids).toEqual([waiting]);

      const sized = await running.start({
        browserbaseSessionCreateParams: {
          browserSettings: { viewport: { width: 800, height: 600 } },
        },
      });
      expect(sized.pid).toBe(waiting);
      // As a browser launched at that size: the page and its window.
      expect(
        await inPage(running, sized.id, () => [innerWidth, innerHeight, outerWidth, outerHeight]),
      ).toEqual([800, 600, 800, 600]);
      expect(await running.browsersFrom("warm")).toBe(1);
      expect(await running.browsersFrom("launched")).toBe(1);
    });
  });

  it("holds a warm browser to the sandbox's rules as a fresh one: its user and folder, the pipe, the egress guard", async () => {
    await withService({ WAYFARER_WARM_BROWSERS: "1" }, async (running) => {
      await running.warm(1);
      const warm = await running.start();
      // A locale is a launch switch: this one is launched at its start.
      const fresh = await running.start({
        browser: { type: "local", launchOptions: { locale: "de-DE" } },
      });
      expect(await running.browsersFrom("warm")).toBe(1);
      expect(await running.browsersFrom("launched")).toBe(1);
      const perSession = running.service.sessions.browserUsers.plan.kind === "per session";
      const seen = [];
      for (const { id, pid } of [warm, fresh]) {
        const session = running.service.sessions.find(id)!;
        const folder = statSync(session.browserFolder!);
        const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
        const args = commandLineIfLive(pid);
        // CDP over a pipe, no port; every request through a guard on 127.0.0.1.
        expect(args).toContain("--remote-debugging-pipe");
        expect(args.some((a) => a.startsWith("--remote-debugging-port"))).toBe(false);
        expect(args.some((a) => /^--proxy-server=http:\/\/127\.0\.0\.1:\d+$/.test(a))).toBe(true);
        // Its folder is its own, 0700, owned by the user it runs as.
        expect(folder.mode & 0o777).toBe(0o700);
        expect(folder.uid).toBe(uid);
        if (perSession) expect(uid).not.toBe(0);
        seen.push({ uid, folder: session.browserFolder });
        // The guard refuses a private address, and its refusal reaches the session's own log.
        await running.call(`/sessions/${id}/navigate`, { url: pages.url("basic.html") });
        await inPage(running, id, () =>
          fetch("http://10.0.0.1/probe", { mode: "no-cors" }).catch(() => undefined),
        );
        expect(session.lines.map((l) => l.message)).toContain(
          "a request was refused by the egress rule",
        );
      }
      expect(seen[0]!.folder).not.toBe(seen[1]!.folder);
      if (perSession) expect(seen[0]!.uid).not.toBe(seen[1]!.uid);
    });
  });

  it("a waiting browser killed is never handed out, and another takes its place", async () => {
    await withService({ WAYFARER_WARM_BROWSERS: "1" }, async (running) => {
      const [killed] = await running.warm(1);
      terminateGroup(killed!);
      // At once: the start must not get the browser that died.
      const session = await running.start();
      expect(session.pid).not.toBe(killed);
      expect(
        (await running.call(`/sessions/${session.id}/navigate`, { url: pages.url("basic.html") }))
          .status,
      ).toBe(200);
      const [replaced] = await running.warm(1);
      expect(replaced).not.toBe(killed);
      expect(await stillLive([killed!])).toEqual([]);

      // Dead before the service has heard of it (its pipe's end not yet read): the take itself
      // finds it out, and a fresh start would launch.
      const [next] = await running.warm(1);
      terminateGroup(next!);
      const until = Date.now() + 2_000;
      while (processState(next!) !== "Z" && Date.now() < until) {
        // Without yielding: the event loop must not read the closed pipe first.
      }
      expect(processState(next!)).toBe("Z");
      expect(running.service.sessions.warmBrowsers!.take()).toBeUndefined();
      expect(await running.warm(1)).not.toContain(next);
    });
  });
});

describe("when memory is short", () => {
  it("the pool stands down: its waiting browser ends, none is launched, a start launches its own; it fills again once memory is back", async () => {
    let short = false;
    await withService(
      // Idle sessions (and memory) are looked at every 250 ms.
      { WAYFARER_WARM_BROWSERS: "1", WAYFARER_SESSION_IDLE_MS: "1000" },
      async (running) => {
        const pool = running.service.sessions.warmBrowsers!;
        const [waited] = await running.warm(1);
        short = true;
        const until = Date.now() + 10_000;
        while (((await stillLive([waited!])).length || pool.held) && Date.now() < until)
          await new Promise((r) => setTimeout(r, 50));
        expect(await stillLive([waited!])).toEqual([]);
        expect(pool.held).toBe(0);
        expect(running.warnings.filter((l) => l.includes("memory is short"))).toHaveLength(1);
        const session = await running.start();
        expect(session.pid).not.toBe(waited);
        expect(await running.browsersFrom("launched")).toBe(1);
        await new Promise((r) => setTimeout(r, 600));
        expect(pool.held).toBe(0);
        short = false;
        const [again] = await running.warm(1);
        expect(again).not.toBe(waited);
        expect(running.warnings.some((l) => l.includes("memory is available again"))).toBe(true);
      },
      { memoryShort: () => short },
    );
  });

  it("is short under 512 MiB available, or under a tenth of the machine's memory", () => {
    const MiB = 1024 * 1024;
    expect(memoryIsShort(400 * MiB, 2048 * MiB)).toBe(true);
    expect(memoryIsShort(1024 * MiB, 4096 * MiB)).toBe(false);
    expect(memoryIsShort(1024 * MiB, 16384 * MiB)).toBe(true);
    expect(memoryIsShort(2048 * MiB, 16384 * MiB)).toBe(false);
    expect(typeof memoryIsShort()).toBe("boolean");
  });
});

describe("the machine's default", () => {
  it("one per two cores and per 4 GiB, two at most, none on one core or under 4 GiB", () => {
    const GiB = 2 ** 30;
    expect(machineWarmBrowsers(2, 23 * GiB)).toBe(1);
    expect(machineWarmBrowsers(8, 32 * GiB)).toBe(2);
    expect(machineWarmBrowsers(4, 6 * GiB)).toBe(1);
    expect(machineWarmBrowsers(1, 16 * GiB)).toBe(0);
    expect(machineWarmBrowsers(16, 2 * GiB)).toBe(0);
    expect(serviceConfig({}).warmBrowsers).toBe(machineWarmBrowsers());
    expect(serviceConfig({ WAYFARER_WARM_BROWSERS: "3" }).warmBrowsers).toBe(3);
    expect(() => serviceConfig({ WAYFARER_WARM_BROWSERS: "-1" })).toThrow(/WAYFARER_WARM_BROWSERS/);
  });
});
