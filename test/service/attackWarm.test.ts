/**
 * Warm browsers against hostile key holders: what project A leaves in a pool browser (a cookie,
 * storage, IndexedDB, a service worker, a cache, a page and a popup that keep running) dies
 * with its session, and project B's next pool browser sees none of it; two projects racing
 * for the last waiting browser get one browser each with the quotas held; a pool session is
 * under the egress rule as a launched one (the host's network on 127.0.0.2 sees nothing); a
 * /start aiming launch options at a waiting browser's folder gets nothing of it.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceConfig } from "../../lib/service/config.js";
import { loadKeys } from "../../lib/service/keys.js";
import { buildService, type Service } from "../../lib/service/server.js";
import { commandLineIfLive, liveDescendants, stillLive } from "../support/processes.js";
import { scrape } from "../support/prometheus.js";
import { eventually, pause, useRecordingServer } from "../support/sandbox.js";
import { useStaticServer } from "../support/staticServer.js";

const pages = useStaticServer();
const hostNetwork = useRecordingServer("127.0.0.2");
const KEYS = { alpha: "key-attack-warm-alpha-0123456789", beta: "key-attack-warm-beta-0123456789" };
type Project = keyof typeof KEYS;

/** Counts the beacons a page left running sends it. */
const beacons: string[] = [];
let beaconServer: HttpServer;
let beaconOrigin = "";
beforeAll(async () => {
  beaconServer = createServer((req, res) => {
    beacons.push(req.url ?? "");
    res.end();
  });
  await new Promise<void>((done) => beaconServer.listen(0, "127.0.0.1", done));
  beaconOrigin = `http://127.0.0.1:${(beaconServer.address() as AddressInfo).port}`;
});
afterAll(() => {
  beaconServer.closeAllConnections();
  return new Promise<void>((done) => beaconServer.close(() => done()));
});

interface Running {
  service: Service;
  // biome-ignore lint/suspicious/noExplicitAny: the v1 envelope, read field by field
  call(project: Project, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  start(project: Project): Promise<{ status: number; id?: string; pid?: number }>;
  warm(count: number): Promise<void>;
  browsersFrom(from: "warm" | "launched"): Promise<number>;
}

async function withService(env: Record<string, string>, test: (r: Running) => Promise<void>) {
  const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-attack-warm-"));
  const config = {
    ...serviceConfig({ PORT: "0", WAYFARER_ALLOW_HOSTS: "127.0.0.1", ...env }),
    dataDir,
    warn: () => {},
  };
  const keys = `alpha:${KEYS.alpha},beta:${KEYS.beta}`;
  const service = buildService(config, await loadKeys(keys, dataDir, () => {}));
  try {
    const url = await service.listen("127.0.0.1", 0);
    const call = async (project: Project, path: string, body: unknown = {}) => {
      const answer = await fetch(`${url}/v1${path}`, {
        method: "POST",
        headers: { "x-wf-api-key": KEYS[project], "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      // biome-ignore lint/suspicious/noExplicitAny: the v1 envelope, read field by field
      return { status: answer.status, body: (await answer.json()) as any };
    };
    await test({
      service,
      call,
      async start(project) {
        const started = await call(project, "/sessions/start");
        const id = started.body?.data?.sessionId as string | undefined;
        return {
          status: started.status,
          id,
          pid: id ? service.sessions.browserPidOf(id) : undefined,
        };
      },
      async warm(count) {
        const pool = service.sessions.warmBrowsers!;
        await eventually(() => pool.ready >= count, 45_000);
        expect(pool.ready).toBe(count);
      },
      async browsersFrom(from) {
        return (await scrape(url)).value("wayfarer_session_browsers_total", { from }) ?? 0;
      },
    });
  } finally {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Runs `script` in the session's active page. */
const inPage = <T, A>(r: Running, id: string, script: (arg: A) => T | Promise<T>, arg: A) =>
  r.service.sessions
    .find(id)!
    .activePage()!
    .playwrightPage.evaluate(script as (arg: unknown) => T | Promise<T>, arg as unknown);

describe("a warm browser against a hostile key holder", () => {
  it("what project A leaves dies with its session: project B's pool browser sees none of it, none of A's processes is left", async () => {
    await withService({ WAYFARER_WARM_BROWSERS: "1" }, async (r) => {
      await r.warm(1);
      const a = await r.start("alpha");
      expect(a.status).toBe(200);
      const leftovers = pages.url("attack/leftovers.html");
      expect((await r.call("alpha", `/sessions/${a.id}/navigate`, { url: leftovers })).status).toBe(
        200,
      );
      expect(
        await inPage(
          r,
          a.id!,
          (b) => (window as unknown as { leave(b: string): Promise<boolean> }).leave(b),
          beaconOrigin,
        ),
      ).toBe(true);
      expect(await eventually(() => beacons.some((b) => b === "/popup"), 10_000)).toBe(true);
      const processesOfA = [a.pid!, ...liveDescendants(a.pid!)];
      expect(processesOfA.length).toBeGreaterThan(1);

      expect((await r.call("alpha", `/sessions/${a.id}/end`)).status).toBe(200);
      expect(await stillLive(processesOfA)).toEqual([]);
      // Nothing of A's pages runs on: no beacon after a moment to drain what was in flight.
      await pause(500);
      const after = beacons.length;
      await pause(1_500);
      expect(beacons.length).toBe(after);

      await r.warm(1);
      const b = await r.start("beta");
      expect(await r.browsersFrom("warm")).toBe(2);
      expect((await r.call("beta", `/sessions/${b.id}/navigate`, { url: leftovers })).status).toBe(
        200,
      );
      const seen = await inPage(
        r,
        b.id!,
        async () => ({
          body: document.querySelector("h1")?.textContent,
          cookie: document.cookie,
          local: localStorage.getItem("left"),
          databases: (await indexedDB.databases()).map((d) => d.name),
          workers: (await navigator.serviceWorker.getRegistrations()).length,
          caches: await caches.keys(),
        }),
        undefined,
      );
      expect(seen).toEqual({
        body: "A session that leaves what it can behind",
        cookie: "",
        local: null,
        databases: [],
        workers: 0,
        caches: [],
      });
      const tabs = r.service.sessions.find(b.id!)!.activePage()!.playwrightPage.context().pages();
      expect(tabs).toHaveLength(1);
    });
  });

  it("two projects racing for the last waiting browser: one takes it, the other launches; the quotas hold", async () => {
    await withService(
      {
        WAYFARER_WARM_BROWSERS: "1",
        WAYFARER_MAX_SESSIONS: "3",
        WAYFARER_PROJECT_MAX_SESSIONS: "1",
      },
      async (r) => {
        await r.warm(1);
        // Alpha asks twice at once: its quota lets one through, whichever gets the browser.
        const [a1, a2, b] = await Promise.all([
          r.start("alpha"),
          r.start("alpha"),
          r.start("beta"),
        ]);
        expect([a1.status, a2.status].sort()).toEqual([200, 429]);
        expect(b.status).toBe(200);
        const a = a1.status === 200 ? a1 : a2;
        expect(a.pid).not.toBe(b.pid);
        expect(await r.browsersFrom("warm")).toBe(1);
        expect(await r.browsersFrom("launched")).toBe(1);
        // The pool fills the room left; a project at its limit gets no browser from it.
        await r.warm(1);
        const waiting = r.service.sessions.warmBrowsers!.pids;
        expect((await r.start("alpha")).status).toBe(429);
        expect((await r.start("beta")).status).toBe(429);
        // A refused start gives back the browser it took: still the same one, not relaunched.
        await pause(500);
        expect(r.service.sessions.warmBrowsers!.pids).toEqual(waiting);
        expect(r.service.sessions.size + r.service.sessions.warmBrowsers!.held).toBeLessThanOrEqual(
          3,
        );
      },
    );
  });

  it("a pool session's page reaches nothing of the host's network, however its address is spelt", async () => {
    await withService({ WAYFARER_WARM_BROWSERS: "1" }, async (r) => {
      await r.warm(1);
      const s = await r.start("alpha");
      expect(await r.browsersFrom("warm")).toBe(1);
      expect(
        (await r.call("alpha", `/sessions/${s.id}/navigate`, { url: pages.url("basic.html") }))
          .status,
      ).toBe(200);
      const port = hostNetwork.port;
      const targets = [
        `http://127.0.0.2:${port}/v4`,
        `http://[::ffff:127.0.0.2]:${port}/mapped`,
        `http://[::ffff:7f00:2]:${port}/mapped-hex`,
        `http://2130706434:${port}/decimal`,
        `http://0x7f.0.0.2:${port}/hex`,
        `http://169.254.169.254/latest/meta-data/`,
      ];
      await inPage(
        r,
        s.id!,
        (urls) =>
          Promise.all(
            urls.map((u) =>
              fetch(u, { mode: "no-cors" }).then(
                () => 1,
                () => 0,
              ),
            ),
          ),
        targets,
      );
      for (const url of targets) {
        const navigated = await r.call("alpha", `/sessions/${s.id}/navigate`, { url });
        expect(navigated.status, url).not.toBe(200);
      }
      await pause(1_000);
      expect(hostNetwork.seen).toEqual([]);
    });
  });

  it("a /start aiming launch options at a waiting browser's folder: refused by default; allowed, it reaches nothing of it", async () => {
    for (const allowed of ["", "userDataDir"]) {
      await withService(
        { WAYFARER_WARM_BROWSERS: "1", WAYFARER_ALLOW_LAUNCH_OPTIONS: allowed },
        async (r) => {
          await r.warm(1);
          const [waiting] = r.service.sessions.warmBrowsers!.pids;
          const folder = commandLineIfLive(waiting!)
            .find((a) => a.startsWith("--user-data-dir="))!
            .slice("--user-data-dir=".length);
          const aimed = await r.call("alpha", "/sessions/start", {
            browser: { type: "local", launchOptions: { userDataDir: folder } },
          });
          if (allowed) expect(aimed.status).not.toBe(200);
          else {
            expect(aimed.status).toBe(400);
            expect(aimed.body.message).toContain("WAYFARER_ALLOW_LAUNCH_OPTIONS=userDataDir");
          }
          // The waiting browser is the next session's, as it was: one blank tab, nothing of A's.
          const b = await r.start("beta");
          expect(b.pid).toBe(waiting);
          const tabs = r.service.sessions
            .find(b.id!)!
            .activePage()!
            .playwrightPage.context()
            .pages();
          expect(tabs.map((t) => t.url())).toEqual(["about:blank"]);
        },
      );
    }
  });
});
