/**
 * The watchdog: a session whose browser holds more private memory than
 * WAYFARER_BROWSER_MAX_MEMORY_MB, or whose folder takes more disk than
 * WAYFARER_SESSION_MAX_DISK_MB, is ended; its log and the service's say why, and so does the
 * next call of its own project on it (the same 404 SessionNotFound as any ended session), while
 * another project learns nothing more than of an id that never existed. A session within the
 * limits is left alone. Real Chromium through the in-process service, low limits, a fast tick.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { serviceConfig } from "../../lib/service/config.js";
import type { Session } from "../../lib/service/session.js";
import {
  type Excess,
  excessText,
  folderBytes,
  groupMemory,
  SessionWatch,
  type Watched,
} from "../../lib/service/sessionWatch.js";
import { waitUntilGone } from "../support/processes.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const MB = 2 ** 20;
// A browser with one ordinary page holds ~100 MB of its own, a fresh profile a few MB.
const MEMORY_MB = 400;
const DISK_MB = 64;
const INTERVAL_MS = 100;

const warnings: string[] = [];
const server = useStaticServer();
const service = useService({
  watchIntervalMs: INTERVAL_MS,
  warn: (line) => warnings.push(line),
  limits: {
    ...serviceConfig({}).limits,
    browserMaxMemoryMb: MEMORY_MB,
    sessionMaxDiskMb: DISK_MB,
  },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(): Promise<{ id: string; session: Session }> {
  const started = await service.call("POST", "/v1/sessions/start", { body: {} });
  expect(started.status).toBe(200);
  const id = started.body.data.sessionId as string;
  const navigated = await service.call("POST", `/v1/sessions/${id}/navigate`, {
    body: { url: server.url("basic.html") },
  });
  expect(navigated.status).toBe(200);
  return { id, session: service.service.sessions.find(id)! };
}

async function endedByWatchdog(id: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (service.service.sessions.find(id) && Date.now() < deadline) await sleep(50);
  expect(service.service.sessions.find(id)).toBeUndefined();
}

/** What another project is answered for the id, against what it is told of an unknown one. */
async function othersView(id: string) {
  const asked = await service.call("POST", `/v1/sessions/${id}/navigate`, {
    key: KEYS.beta,
    body: { url: server.url("basic.html") },
  });
  const unknown = "00000000-0000-4000-8000-000000000000";
  const never = await service.call("POST", `/v1/sessions/${unknown}/navigate`, {
    key: KEYS.beta,
    body: { url: server.url("basic.html") },
  });
  expect(asked.status).toBe(never.status);
  expect(asked.text).toBe(never.text.replaceAll(unknown, id));
  return asked;
}

describe("the watchdog", () => {
  it("leaves a session within its limits alone", async () => {
    const { id } = await start();
    await sleep(INTERVAL_MS * 10);
    expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(200);
    expect(warnings.filter((w) => w.includes(id))).toEqual([]);
    expect((await service.call("POST", `/v1/sessions/${id}/end`)).status).toBe(200);
  });

  it("ends a session whose browser holds more memory than its limit, and says why to its own project only", async () => {
    const { id, session } = await start();
    const pid = session.browserPid!;
    // Answered or cut short by the end, whichever comes first: the end is what is checked.
    await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: server.url(`memory.html?mb=${MEMORY_MB + 200}`) },
    });
    await endedByWatchdog(id);
    expect(await waitUntilGone(pid)).toEqual([]);

    const said = session.lines.filter((l) => l.message.includes("WAYFARER_BROWSER_MAX_MEMORY_MB"));
    expect(said).toHaveLength(1);
    expect(said[0]!.message).toMatch(
      new RegExp(
        `^ended: its browser used \\d+ MB of memory, past WAYFARER_BROWSER_MAX_MEMORY_MB \\(${MEMORY_MB}\\)$`,
      ),
    );
    // The watchdog's warning (the navigate it cut short has its own line: a 500, request id).
    const warned = warnings.filter((w) => w.includes(id) && w.startsWith("warning:"));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain("of project alpha");
    expect(warned[0]).toContain(`past WAYFARER_BROWSER_MAX_MEMORY_MB (${MEMORY_MB})`);

    // Its own project's next call: the 404 of an ended session, with the reason.
    const next = await service.call("POST", `/v1/sessions/${id}/act`, {
      body: { input: "click Search" },
    });
    expect(next.status).toBe(404);
    expect(next.body.error.name).toBe("SessionNotFound");
    expect(next.body.message).toMatch(
      new RegExp(
        `^The session ${id} was ended: its browser used \\d+ MB of memory, past WAYFARER_BROWSER_MAX_MEMORY_MB \\(${MEMORY_MB}\\)\\.$`,
      ),
    );
    expect(Number(/used (\d+) MB/.exec(next.body.message)![1])).toBeGreaterThan(MEMORY_MB);
    // Every later call too (the platform's view of it, /end).
    const viewed = await service.call("GET", `/v1/sessions/${id}`);
    expect([viewed.status, viewed.body.message]).toEqual([404, next.body.message]);
    expect((await service.call("POST", `/v1/sessions/${id}/end`)).body.message).toBe(
      next.body.message,
    );

    const others = await othersView(id);
    expect(others.body.message).toBe(`No session ${id}: it ended, or it never existed.`);
    expect(others.text).not.toContain("MEMORY");
  });

  it("ends a session whose folder takes more disk than its limit", async () => {
    const { id, session } = await start();
    const watched: Watched = session;
    const folder = watched.browserFolder!;
    // A download, written straight into the session's folder.
    await mkdir(join(folder, "downloads"), { recursive: true });
    await writeFile(join(folder, "downloads", "big.bin"), Buffer.alloc((DISK_MB + 16) * MB, 1));
    await endedByWatchdog(id);

    expect(session.lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /^ended: its browser's files took \d+ MB, past WAYFARER_SESSION_MAX_DISK_MB \(64\)$/,
      ),
    );
    expect(warnings.filter((w) => w.includes(id))).toEqual([
      expect.stringContaining("past WAYFARER_SESSION_MAX_DISK_MB (64)"),
    ]);
    const next = await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: server.url("basic.html") },
    });
    expect([next.status, next.body.error.name]).toEqual([404, "SessionNotFound"]);
    expect(next.body.message).toMatch(
      new RegExp(
        `^The session ${id} was ended: its browser's files took \\d+ MB, past WAYFARER_SESSION_MAX_DISK_MB \\(64\\)\\.$`,
      ),
    );
    expect((await othersView(id)).text).not.toContain("DISK");

    // Kept 15 minutes: later, the id answers as any ended session's.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 15 * 60_000 + 1_000);
      const later = await service.call("GET", `/v1/sessions/${id}`);
      expect([later.status, later.body.message]).toEqual([
        404,
        `No session ${id}: it ended, or it never existed.`,
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("what the watchdog measures", () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  /** An idle node process leading its own process group, for the length of `use`. */
  async function withIdleGroup(use: (pid: number) => Promise<void>): Promise<void> {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
      detached: true,
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      // Started: its memory is its own, not the parent's copy before exec.
      await sleep(300);
      await use(child.pid!);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  }

  async function folderWith(files: Record<string, number>): Promise<string> {
    const folder = await mkdtemp(join(tmpdir(), "wayfarer-watch-"));
    folders.push(folder);
    for (const [name, bytes] of Object.entries(files)) {
      await mkdir(join(folder, name, ".."), { recursive: true });
      await writeFile(join(folder, name), Buffer.alloc(bytes, 7));
    }
    return folder;
  }

  it("counts files in every subfolder, never what a symbolic link points to", async () => {
    const outside = await folderWith({ "huge.bin": 8 * MB });
    const folder = await folderWith({ "profile/a.bin": 2 * MB, "tmp/deep/b.bin": 1 * MB });
    await symlink(join(outside, "huge.bin"), join(folder, "link.bin"));
    await symlink(outside, join(folder, "profile", "linked-folder"));
    const bytes = await folderBytes(folder);
    expect(bytes).toBeGreaterThanOrEqual(3 * MB);
    expect(bytes).toBeLessThan(4 * MB);
    expect(await folderBytes(join(folder, "not-there"))).toBe(0);
  });

  it("sums the private memory of a process group, and nothing for a group not asked for", async () => {
    await withIdleGroup(async (pid) => {
      const memory = await groupMemory(new Set([pid]));
      expect([...memory.keys()]).toEqual([pid]);
      // A node process holds some MB of its own.
      expect(memory.get(pid)).toBeGreaterThan(1 * MB);
      expect(memory.get(pid)).toBeLessThan(500 * MB);
    });
  });

  it("tells of each session past a limit, and a failure in one tick harms nothing", async () => {
    const big = await folderWith({ "profile/a.bin": 2 * MB });
    const told: [string, Excess][] = [];
    await withIdleGroup(async (pid) => {
      const sessions: Watched[] = [
        { id: "a", project: "p", browserPid: pid, browserFolder: undefined },
        { id: "b", project: "p", browserPid: undefined, browserFolder: big },
        { id: "c", project: "p", browserPid: 999_999_999, browserFolder: join(big, "gone") },
      ];
      const limits = { memoryMb: 1, diskMb: 1, intervalMs: 50 };
      const watch = new SessionWatch(
        limits,
        () => sessions,
        (s, e) => {
          told.push([s.id, e]);
          throw new Error("the end failed");
        },
      );
      await watch.tick();
    });
    expect(told.map(([id, e]) => [id, e.what, e.variable])).toEqual([
      ["a", "memory", "WAYFARER_BROWSER_MAX_MEMORY_MB"],
      ["b", "disk", "WAYFARER_SESSION_MAX_DISK_MB"],
    ]);
    expect(told[1]![1].bytes).toBeGreaterThanOrEqual(2 * MB);
    // The timer keeps ticking through failures (those of `over` and of a listing that throws).
    let listed = 0;
    const failing = new SessionWatch(
      { memoryMb: 1, diskMb: undefined, intervalMs: 20 },
      () => {
        listed++;
        throw new Error("the listing failed");
      },
      () => {},
    );
    failing.start();
    await sleep(200);
    failing.stop();
    const after = listed;
    await sleep(100);
    expect(after).toBeGreaterThan(2);
    expect(listed).toBe(after);
  });

  it("says the figure and the variable", () => {
    const memory: Excess = {
      what: "memory",
      bytes: 2.3 * 2 ** 30,
      limitMb: 2048,
      variable: "WAYFARER_BROWSER_MAX_MEMORY_MB",
    };
    expect(excessText(memory)).toBe(
      "its browser used 2.3 GB of memory, past WAYFARER_BROWSER_MAX_MEMORY_MB (2048)",
    );
    expect(
      excessText({
        what: "disk",
        bytes: 1_100 * MB,
        limitMb: 1024,
        variable: "WAYFARER_SESSION_MAX_DISK_MB",
      }),
    ).toBe("its browser's files took 1.1 GB, past WAYFARER_SESSION_MAX_DISK_MB (1024)");
  });
});
