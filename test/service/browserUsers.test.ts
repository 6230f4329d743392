/**
 * Whom sessions' browsers run as (WAYFARER_BROWSER_USERS): the setting, the allocation of uids,
 * the decision about Chromium's sandbox and the start-up lines for several host shapes (the
 * probes' answers injected), then one real browser launched as an allocated user: every process
 * of it runs as that uid, its folder is its own, its renderers are sandboxed, and another
 * session's uid cannot read its files.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type LaunchedBrowser, launchBrowser } from "../../lib/browser/launch.js";
import { ServiceValidationError } from "../../lib/errors.js";
import { LocalBrowserLaunchOptionsSchema } from "../../lib/options.js";
import { BrowserUsers, DEFAULT_BROWSER_UIDS } from "../../lib/service/browserUsers.js";
import { serviceConfig } from "../../lib/service/config.js";
import {
  type BrowserUsersPlan,
  closedFolders,
  describeIsolation,
  isolationLines,
  probeCgroup,
  probeSandbox,
  type SandboxSupport,
  type UsersHost,
} from "../../lib/service/isolation.js";
import { ServiceFull } from "../../lib/service/serviceErrors.js";
import { liveGroupMembers } from "../support/processes.js";

const NAMESPACES: SandboxSupport = { works: true, by: "user namespaces" };
const ROOT_REFUSED: SandboxSupport = { works: false, why: "Chromium refuses its sandbox to root" };

/** A host as BrowserUsers sees it: root on Linux, user namespaces working, unless told otherwise. */
function host(overrides: Partial<UsersHost> = {}): UsersHost {
  return {
    platform: "linux",
    uid: 0,
    gid: 0,
    sandboxFor: (uid) => (uid === undefined ? ROOT_REFUSED : NAMESPACES),
    unusable: () => undefined,
    busyUids: () => new Set([0]),
    ...overrides,
  };
}

describe("WAYFARER_BROWSER_USERS", () => {
  it("is auto when unset, and takes off or a range of uids", () => {
    expect(serviceConfig({}).browserUsers).toEqual({ kind: "auto" });
    expect(serviceConfig({ WAYFARER_BROWSER_USERS: "off" }).browserUsers).toEqual({ kind: "off" });
    expect(serviceConfig({ WAYFARER_BROWSER_USERS: " 300000-300099 " }).browserUsers).toEqual({
      kind: "range",
      first: 300_000,
      last: 300_099,
    });
  });

  it.each([
    ["everyone", /expected auto, off, or a range of uids FIRST-LAST/],
    ["300099-300000", /FIRST ≤ LAST/],
    ["0-999", /from 1000/],
    ["60000-70000", /without 65534 \(nobody\)/],
    ["3000000000-3000000009", /up to 2147483646/],
  ])("refuses %s, naming the variable", (value, why) => {
    const parse = () => serviceConfig({ WAYFARER_BROWSER_USERS: value });
    expect(parse).toThrow(ServiceValidationError);
    expect(parse).toThrow(/WAYFARER_BROWSER_USERS/);
    expect(parse).toThrow(why);
  });
});

describe("BrowserUsers", () => {
  const range = { kind: "range", first: 300_000, last: 300_002 } as const;

  it("gives each live session a uid of its own, gid = uid, the sandbox as decided", () => {
    const users = new BrowserUsers(range, host());
    const a = users.take("a");
    const b = users.take("b");
    const c = users.take("c");
    expect(new Set([a?.uid, b?.uid, c?.uid])).toEqual(new Set([300_000, 300_001, 300_002]));
    for (const runAs of [a, b, c])
      expect(runAs).toEqual({ uid: runAs!.uid, gid: runAs!.uid, sandbox: true });
    // Asked again for the same session: the same user, nothing more taken.
    expect(users.take("a")).toEqual(a);
  });

  it("refuses a session when every uid is in use (503), and hands out a given-back one again", () => {
    const users = new BrowserUsers(range, host());
    const taken = ["a", "b", "c"].map((id) => users.take(id)!.uid);
    const full = () => users.take("d");
    expect(full).toThrow(ServiceFull);
    expect(full).toThrow(
      "No browser user is free: each of the 3 uids of WAYFARER_BROWSER_USERS (300000-300002) is in use by a session or a process; end a session or widen the range.",
    );
    users.give("b");
    expect(users.take("d")!.uid).toBe(taken[1]);
  });

  it("hands a given-back uid out last, and never a uid a live process runs as", () => {
    const busy = new Set([0, 300_001]);
    const users = new BrowserUsers(range, host({ busyUids: () => busy }));
    const a = users.take("a")!.uid;
    expect(a).not.toBe(300_001);
    users.give("a");
    const b = users.take("b")!.uid;
    expect([a, 300_001]).not.toContain(b);
    // The only uid neither a session nor a process has is the one given back.
    expect(users.take("c")!.uid).toBe(a);
    expect(() => users.take("d")).toThrow(ServiceFull);
  });

  it("gives uids without the sandbox where the host cannot sandbox such a user", () => {
    const none: SandboxSupport = {
      works: false,
      why: "no user namespaces (unshare: Operation not permitted)",
    };
    const users = new BrowserUsers(range, host({ sandboxFor: () => none }));
    expect(users.take("a")).toMatchObject({ sandbox: false });
    expect(users.plan).toEqual({
      kind: "per session",
      first: 300_000,
      last: 300_002,
      sandbox: none,
    });
  });

  it("auto: the default range as root, the service's own user otherwise", () => {
    expect(new BrowserUsers({ kind: "auto" }, host()).plan).toEqual({
      kind: "per session",
      ...DEFAULT_BROWSER_UIDS,
      sandbox: NAMESPACES,
    });
    const notRoot = new BrowserUsers(
      { kind: "auto" },
      host({ uid: 1000, gid: 1000, sandboxFor: () => NAMESPACES }),
    );
    expect(notRoot.take("a")).toBeUndefined();
    expect(notRoot.plan).toEqual({
      kind: "service's user",
      uid: 1000,
      sandbox: NAMESPACES,
      because: "the service does not run as root",
    });
    const mac = new BrowserUsers({ kind: "auto" }, host({ platform: "darwin" }));
    expect(mac.take("a")).toBeUndefined();
    expect(mac.plan).toMatchObject({ because: "no user per session on darwin" });
  });

  it("off: the service's user even as root, and so no sandbox", () => {
    const users = new BrowserUsers({ kind: "off" }, host());
    expect(users.take("a")).toBeUndefined();
    expect(users.plan).toEqual({
      kind: "service's user",
      uid: 0,
      sandbox: ROOT_REFUSED,
      because: "WAYFARER_BROWSER_USERS=off",
    });
  });

  it("refuses a range it cannot use at start-up; auto says why and falls back", () => {
    const unusable = "ids 300000-300002 are not mapped in the user namespace the service runs in";
    for (const [shape, message] of [
      [host({ unusable: () => unusable }), unusable],
      [
        host({ uid: 1000 }),
        "a range of uids needs the service to run as root; it runs as uid 1000",
      ],
      [host({ platform: "darwin" }), "a range of uids needs Linux; this is darwin"],
    ] as const) {
      const start = () => new BrowserUsers(range, shape);
      expect(start).toThrow(ServiceValidationError);
      expect(start).toThrow(`${message} → at the service's environment.WAYFARER_BROWSER_USERS`);
    }
    const auto = new BrowserUsers({ kind: "auto" }, host({ unusable: () => unusable }));
    expect(auto.take("a")).toBeUndefined();
    expect(auto.plan).toMatchObject({
      kind: "service's user",
      uid: 0,
      because: `${unusable}; set WAYFARER_BROWSER_USERS to a range that can be used`,
    });
  });
});

describe("the host's probes", () => {
  it("finds user namespaces closed by a kernel switch, or by a failed try", () => {
    const tried: (number | undefined)[] = [];
    const open = {
      tryNamespaces: (uid: number | undefined) => {
        tried.push(uid);
        return { ok: true as const };
      },
    };
    expect(probeSandbox(300_000, { read: () => undefined, executable: null, ...open })).toEqual(
      NAMESPACES,
    );
    expect(tried).toEqual([300_000]);
    const switches = (path: string) =>
      ({ "/proc/sys/user/max_user_namespaces": "0" })[path as "/proc/sys/user/max_user_namespaces"];
    expect(probeSandbox(300_000, { read: switches, executable: null, ...open })).toEqual({
      works: false,
      why: "no user namespaces (/proc/sys/user/max_user_namespaces is 0), and the browser has no setuid chrome-sandbox",
    });
    const ubuntu = (path: string) =>
      path === "/proc/sys/kernel/apparmor_restrict_unprivileged_userns" ? "1" : undefined;
    expect(probeSandbox(300_000, { read: ubuntu, executable: null, ...open })).toMatchObject({
      why: expect.stringContaining("apparmor_restrict_unprivileged_userns is 1"),
    });
    const seccomp = () => ({
      ok: false as const,
      detail: "unshare failed: Operation not permitted",
    });
    expect(
      probeSandbox(300_000, { read: () => undefined, executable: null, tryNamespaces: seccomp }),
    ).toMatchObject({ why: expect.stringContaining("unshare failed: Operation not permitted") });
    expect(probeSandbox(0, { ...open, executable: null })).toEqual(ROOT_REFUSED);
    expect(probeSandbox(501, { platform: "darwin" })).toEqual({
      works: true,
      by: "Chromium's own (darwin)",
    });
  });

  it.skipIf(process.getuid?.() !== 0)(
    "finds a setuid chrome-sandbox next to the browser (a root-owned helper needs root to make)",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "wayfarer-helper-"));
      try {
        const browser = join(dir, "chrome");
        writeFileSync(browser, "");
        const helper = join(dir, "chrome-sandbox");
        copyFileSync("/bin/true", helper);
        const closed = { read: () => "0", executable: browser };
        chmodSync(helper, 0o755);
        expect(probeSandbox(300_000, closed).works).toBe(false);
        chmodSync(helper, 0o4755);
        expect(probeSandbox(300_000, closed)).toEqual({
          works: true,
          by: `the setuid helper ${helper}`,
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("reads the cgroup version and its memory controller", () => {
    const files = (entries: Record<string, string>) => (path: string) => entries[path];
    expect(
      probeCgroup(files({ "/sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids" })),
    ).toBe("v2 with memory");
    expect(probeCgroup(files({ "/sys/fs/cgroup/cgroup.controllers": "cpu pids" }))).toBe(
      "v2 without memory",
    );
    expect(probeCgroup(files({ "/proc/self/cgroup": "4:memory:/x\n0::/" }))).toBe("v1");
    expect(probeCgroup(files({}))).toBe("none");
  });

  it("finds a browsers' folder other users cannot enter", () => {
    const dir = mkdtempSync(join(tmpdir(), "wayfarer-closed-"));
    try {
      const inside = join(dir, "tmp");
      mkdirSync(inside);
      chmodSync(dir, 0o700);
      expect(closedFolders([inside])).toBe(
        `the browsers' folders go under ${inside}, and other users cannot enter ${dir}: set TMPDIR to a folder they can (e.g. /tmp)`,
      );
      chmodSync(dir, 0o755);
      expect(closedFolders([inside])).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the start-up lines", () => {
  const PIPE =
    "isolation: CDP over a pipe: a browser listens on no port; clients reach it only through the service's CDP proxy";
  const perSession = (sandbox: SandboxSupport): BrowserUsersPlan => ({
    kind: "per session",
    first: 300_000,
    last: 300_099,
    sandbox,
  });
  const service = (
    uid: number | undefined,
    sandbox: SandboxSupport,
    because: string,
  ): BrowserUsersPlan => ({
    kind: "service's user",
    uid,
    sandbox,
    because,
  });

  it("root with user namespaces: a user per session, the sandbox on; the watchdog, cgroup v2 unused", () => {
    expect(
      describeIsolation({
        platform: "linux",
        users: perSession(NAMESPACES),
        cgroup: "v2 with memory",
        memoryMb: 2048,
      }),
    ).toEqual([
      PIPE,
      "isolation: each session's browser runs as a user of its own (uid from 300000-300099, gid = uid, no other group), its folder its own (0700), with Chromium's sandbox on (user namespaces)",
      "isolation: memory: a watchdog (WAYFARER_BROWSER_MAX_MEMORY_MB=2048) ends a session whose browser holds more, at its next pass, not the kernel at once; this host has a cgroup v2 memory controller, not used yet",
    ]);
  });

  it("root without user namespaces: a user per session, no sandbox; no cgroups, no memory limit", () => {
    const [, users, memory] = describeIsolation({
      platform: "linux",
      users: perSession({
        works: false,
        why: "no user namespaces (/proc/sys/user/max_user_namespaces is 0)",
      }),
      cgroup: "none",
      memoryMb: undefined,
    });
    expect(users).toBe(
      "isolation: each session's browser runs as a user of its own (uid from 300000-300099, gid = uid, no other group), its folder its own (0700), but without Chromium's sandbox: no user namespaces (/proc/sys/user/max_user_namespaces is 0); a page that breaks out of its renderer has that user's rights",
    );
    expect(memory).toBe(
      "isolation: memory: no limit per browser (WAYFARER_BROWSER_MAX_MEMORY_MB=0); no cgroups here",
    );
  });

  it("root with WAYFARER_BROWSER_USERS=off: root without a sandbox, said plainly", () => {
    const [, users, memory] = describeIsolation({
      platform: "linux",
      users: service(0, ROOT_REFUSED, "WAYFARER_BROWSER_USERS=off"),
      cgroup: "v1",
      memoryMb: 2048,
    });
    expect(users).toBe(
      "isolation: every browser runs as root (WAYFARER_BROWSER_USERS=off), without Chromium's sandbox: a page that breaks out of its renderer owns the host and every session",
    );
    expect(memory).toContain("; no cgroup v2 here (cgroup v1 only)");
  });

  it("not root: the service's user, with the sandbox, or browsers that will not start", () => {
    const because = "the service does not run as root";
    const [, sandboxed] = describeIsolation({
      platform: "linux",
      users: service(1000, NAMESPACES, because),
      cgroup: "v2 without memory",
      memoryMb: 2048,
    });
    expect(sandboxed).toBe(
      "isolation: every browser runs as the service's user (uid 1000) (the service does not run as root), with Chromium's sandbox on (user namespaces); sessions' browsers are not kept apart by users, only by the sandbox",
    );
    const [, stuck] = describeIsolation({
      platform: "linux",
      users: service(
        1000,
        {
          works: false,
          why: "no user namespaces (unshare: Operation not permitted), and the browser has no setuid chrome-sandbox",
        },
        because,
      ),
      cgroup: "v1",
      memoryMb: 2048,
    });
    expect(stuck).toContain(
      "Chromium's sandbox cannot work here (no user namespaces (unshare: Operation not permitted)",
    );
    expect(stuck).toContain("browsers will not start");
  });

  it("macOS and Windows: no user per session, Chromium's own sandbox, no memory limit", () => {
    const mac = describeIsolation({
      platform: "darwin",
      users: service(
        501,
        { works: true, by: "Chromium's own (darwin)" },
        "no user per session on darwin",
      ),
      cgroup: "none",
      memoryMb: 2048,
    });
    expect(mac.slice(1)).toEqual([
      "isolation: every browser runs as the service's user (uid 501) (no user per session on darwin), with Chromium's sandbox on (Chromium's own (darwin)); sessions' browsers are not kept apart by users, only by the sandbox",
      "isolation: memory: no limit per browser on darwin (the watchdog reads /proc, and there are no cgroups)",
    ]);
    const [, windows] = describeIsolation({
      platform: "win32",
      users: service(
        undefined,
        { works: true, by: "Chromium's own (win32)" },
        "no user per session on win32",
      ),
      cgroup: "none",
      memoryMb: 2048,
    });
    expect(windows).toBe(
      "isolation: every browser runs as the service's account (no user per session on win32), with Chromium's sandbox on (Chromium's own (win32))",
    );
  });
});

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)(
  "a browser as its session's user (skipped: the service gives browsers users of their own only when it runs as root; CI runs as root)",
  () => {
    let launched: LaunchedBrowser | undefined;
    afterEach(async () => {
      await launched?.terminate();
      launched = undefined;
    });

    it("runs every process as that uid, in a folder of its own, renderers sandboxed, unreadable to another session's uid", async () => {
      const users = new BrowserUsers({ kind: "auto" });
      expect(users.plan).toMatchObject({ kind: "per session", sandbox: { works: true } });
      for (const line of isolationLines(users.plan, 2048)) expect(line).toMatch(/^isolation: /);
      const runAs = users.take("a")!;
      const other = users.take("b")!;
      expect(other.uid).not.toBe(runAs.uid);
      launched = await launchBrowser({
        options: LocalBrowserLaunchOptionsSchema.parse({}),
        profile: "local",
        timeoutMs: 30_000,
        pipe: true,
        runAs,
      });
      const page = await launched.browser.contexts()[0]!.newPage();
      await page.goto("data:text/html,<p>its own user</p>");
      expect(await page.textContent("p")).toBe("its own user");

      const members = liveGroupMembers(launched.pid!);
      expect(members.length).toBeGreaterThan(3);
      for (const pid of members) {
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        const ids = (field: string) =>
          new RegExp(`^${field}:[ \\t]*(.*)$`, "m").exec(status)?.[1]?.trim();
        expect(ids("Uid"), `process ${pid}'s uids`).toBe(Array(4).fill(runAs.uid).join("\t"));
        expect(ids("Gid"), `process ${pid}'s gids`).toBe(Array(4).fill(runAs.uid).join("\t"));
        expect(ids("Groups"), `process ${pid}'s other groups`).toBe("");
        expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).not.toContain("--no-sandbox");
      }
      // A renderer's command line is rewritten as one string with spaces (its process title).
      const renderers = members.filter((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer"),
      );
      expect(renderers.length).toBeGreaterThan(0);
      const ourNamespace = readlinkSync("/proc/self/ns/user");
      for (const pid of renderers) {
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        expect(status, `renderer ${pid}`).toMatch(/^NoNewPrivs:\s*1$/m);
        expect(status, `renderer ${pid}: a seccomp-bpf filter`).toMatch(/^Seccomp:\s*2$/m);
        expect(readlinkSync(`/proc/${pid}/ns/user`)).not.toBe(ourNamespace);
      }

      const folder = statSync(launched.launchDir!);
      expect({ uid: folder.uid, gid: folder.gid, mode: folder.mode & 0o777 }).toEqual({
        uid: runAs.uid,
        gid: runAs.gid,
        mode: 0o700,
      });
      // A file the browser could have downloaded, readable by anyone who can enter the folder.
      const secret = join(launched.downloadsDir!, "secret.txt");
      writeFileSync(secret, "a's", { mode: 0o644 });
      chownSync(secret, runAs.uid, runAs.gid);
      const cat = (uid: number) => spawnSync("cat", [secret], { uid, gid: uid, encoding: "utf8" });
      expect(cat(runAs.uid).stdout).toBe("a's");
      const denied = cat(other.uid);
      expect(denied.status).not.toBe(0);
      expect(denied.stderr).toContain("Permission denied");
      const listing = spawnSync("ls", [join(launched.launchDir!, "profile")], {
        uid: other.uid,
        gid: other.uid,
        encoding: "utf8",
      });
      expect(listing.stderr).toContain("Permission denied");
    });
  },
);
