/**
 * The isolation this host can give a session's browser, probed once at start-up, and the lines
 * the service says about it (docs/guide/service.md, "Who the browsers run as"). Each probe
 * answers with its reason, so that a line says why, not only what.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, parse, relative, sep } from "node:path";
import type { z } from "zod";
import { packAvailable } from "../browser/chromiumPack.js";
import { systemChromium } from "../browser/executable.js";
import { launchFolderBase } from "../browser/launchFolder.js";
import type { ProtectionsSchema } from "./answerSchemas.js";

/** Chromium's sandbox for a browser's user: how it works on this host, or why it cannot. */
export type SandboxSupport = { works: true; by: string } | { works: false; why: string };

/** Whom the browsers run as: BrowserUsers decides it once, from WAYFARER_BROWSER_USERS and the host. */
export type BrowserUsersPlan =
  | { kind: "per session"; first: number; last: number; sandbox: SandboxSupport }
  | {
      kind: "service's user";
      /** The service's uid; undefined where there are none (Windows). */
      uid: number | undefined;
      sandbox: SandboxSupport;
      /** Why not a user per session. */
      because: string;
    };

/** What the host offers for a kernel memory limit per browser. */
export type CgroupSupport = "v2 with memory" | "v2 without memory" | "v1" | "none";

/** What BrowserUsers asks of the host: the real one below, or a test's. */
export interface UsersHost {
  platform: NodeJS.Platform;
  /** The service's own uid and gid; undefined on Windows. */
  uid: number | undefined;
  gid: number | undefined;
  /** Chromium's sandbox for a browser running as `uid` (the service's own user when undefined). */
  sandboxFor(uid: number | undefined): SandboxSupport;
  /** Why the uids first..last (each its own gid) cannot be handed out here; undefined: they can. */
  unusable(first: number, last: number): string | undefined;
  /** Every uid a live process runs as (a real user's, another service's browsers). */
  busyUids(): ReadonlySet<number>;
}

/** This machine, as BrowserUsers sees it. */
export function thisHost(): UsersHost {
  return {
    platform: process.platform,
    uid: process.getuid?.(),
    gid: process.getgid?.(),
    sandboxFor: (uid) => probeSandbox(uid),
    unusable: (first, last) =>
      unmapped(first, last) ?? claimed(first, last) ?? closedFolders(browserFolders()),
    busyUids,
  };
}

/**
 * Whether Chromium's sandbox can work for a browser running as `uid`, decided the way Chromium
 * decides: user namespaces first (the kernel's switches, then an actual try), else the setuid
 * helper `chrome-sandbox` next to the binary. Chromium refuses its sandbox to root outright.
 */
export function probeSandbox(uid: number | undefined, probe: SandboxProbe = {}): SandboxSupport {
  const platform = probe.platform ?? process.platform;
  const runsAs = uid ?? process.getuid?.();
  if (platform !== "linux") {
    return runsAs === 0
      ? { works: false, why: "Chromium refuses its sandbox to root" }
      : { works: true, by: `Chromium's own (${platform})` };
  }
  if (runsAs === 0) return { works: false, why: "Chromium refuses its sandbox to root" };
  const namespaces = userNamespaces(uid, probe);
  if (namespaces.works) return namespaces;
  const helper = setuidHelper(probe.executable === undefined ? serviceBrowser() : probe.executable);
  if (helper) return { works: true, by: `the setuid helper ${helper}` };
  return { works: false, why: `${namespaces.why}, and the browser has no setuid chrome-sandbox` };
}

export interface SandboxProbe {
  platform?: NodeJS.Platform;
  /** A kernel switch's value, undefined where the file does not exist. */
  read?: (path: string) => string | undefined;
  /** Makes user, PID and network namespaces as `uid`, as Chromium's zygote does; undefined: no `unshare` here. */
  tryNamespaces?: (
    uid: number | undefined,
  ) => { ok: true } | { ok: false; detail: string } | undefined;
  /** The browser binary (its helper sits next to it); null: none known. */
  executable?: string | null;
}

/** Switches that close user namespaces to unprivileged users, where the kernel has them. */
const USERNS_SWITCHES = [
  { path: "/proc/sys/kernel/unprivileged_userns_clone", closed: "0" }, // Debian's
  { path: "/proc/sys/user/max_user_namespaces", closed: "0" },
  { path: "/proc/sys/kernel/apparmor_restrict_unprivileged_userns", closed: "1" }, // Ubuntu's
];

function userNamespaces(uid: number | undefined, probe: SandboxProbe): SandboxSupport {
  const read = probe.read ?? readText;
  for (const { path, closed } of USERNS_SWITCHES) {
    if (read(path) === closed)
      return { works: false, why: `no user namespaces (${path} is ${closed})` };
  }
  // The switches can all be open and a container's seccomp profile still refuse unshare(2).
  const tried = (probe.tryNamespaces ?? tryUnshare)(uid);
  if (tried === undefined)
    return { works: true, by: "user namespaces (not tried: no unshare here)" };
  if (tried.ok) return { works: true, by: "user namespaces" };
  return { works: false, why: `no user namespaces (unshare: ${tried.detail})` };
}

function tryUnshare(
  uid: number | undefined,
): { ok: true } | { ok: false; detail: string } | undefined {
  const result = spawnSync("unshare", ["--user", "--pid", "--net", "--fork", "true"], {
    ...(uid === undefined ? {} : { uid, gid: uid }),
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 5_000,
    // The system's folders, not ours: nothing of the service's environment goes to the try.
    env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
  });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") return undefined;
  if (result.status === 0) return { ok: true };
  const said = result.stderr?.toString("utf8").trim().split("\n").pop();
  return { ok: false, detail: said || result.error?.message || `exit ${result.status}` };
}

/**
 * The binary the service's browsers start from, in resolveExecutable's order without unpacking
 * the npm pack (a headless launch prefers it, and it has no helper).
 */
function serviceBrowser(): string | null {
  if (process.env.CHROME_PATH) return process.env.CHROME_PATH;
  return packAvailable() ? null : (systemChromium() ?? null);
}

/** `chrome-sandbox` next to the binary (a wrapper script's target), root's and setuid. */
function setuidHelper(executable: string | null): string | undefined {
  if (!executable) return undefined;
  try {
    const helper = join(dirname(realpathSync(executable)), "chrome-sandbox");
    const { uid, mode } = statSync(helper);
    return uid === 0 && (mode & 0o4000) !== 0 && (mode & 0o001) !== 0 ? helper : undefined;
  } catch {
    return undefined;
  }
}

/** Ids outside the maps of the user namespace the service runs in cannot be set at all. */
function unmapped(first: number, last: number): string | undefined {
  for (const map of ["/proc/self/uid_map", "/proc/self/gid_map"]) {
    const text = readText(map);
    if (text === undefined) continue;
    const extents = text.split("\n").map((line) => line.trim().split(/\s+/).map(Number));
    const covered = extents.some(
      ([inside, , count]) =>
        inside !== undefined && count !== undefined && first >= inside && last < inside + count,
    );
    if (!covered) {
      return `ids ${first}-${last} are not mapped in the user namespace the service runs in (${map}: ${text.replace(/\s+/g, " ").trim()})`;
    }
  }
  return undefined;
}

/** A range holding a real user's or group's id would give browsers that user's files. */
function claimed(first: number, last: number): string | undefined {
  for (const [file, what] of [
    ["/etc/passwd", "user"],
    ["/etc/group", "group"],
  ] as const) {
    for (const line of (readText(file) ?? "").split("\n")) {
      const [name, , id] = line.split(":");
      const n = Number(id);
      if (name && id && n >= first && n <= last) return `${n} is the ${what} ${name}'s (${file})`;
    }
  }
  return undefined;
}

/** Where the browsers' folders and the npm pack's Chromium go: a browser user must reach them. */
function browserFolders(): string[] {
  const temp = tmpdir();
  return [...new Set([launchFolderBase(temp), temp])];
}

/** A folder another user cannot enter: a folder on its path lacks the others' execute bit. */
export function closedFolders(folders: string[]): string | undefined {
  for (const folder of folders) {
    const root = parse(folder).root;
    const parts = relative(root, folder).split(sep).filter(Boolean);
    for (let i = 0; i <= parts.length; i++) {
      const dir = join(root, ...parts.slice(0, i));
      try {
        if ((statSync(dir).mode & 0o001) === 0) {
          return `the browsers' folders go under ${folder}, and other users cannot enter ${dir}: set TMPDIR to a folder they can (e.g. /tmp)`;
        }
      } catch {
        // Made when the first browser starts.
      }
    }
  }
  return undefined;
}

/** The real, effective, saved and file-system uids of every live process. */
function busyUids(): ReadonlySet<number> {
  const uids = new Set<number>();
  let pids: string[];
  try {
    pids = readdirSync("/proc");
  } catch {
    return uids;
  }
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    const line = /^Uid:\s*(.*)$/m.exec(readText(`/proc/${pid}/status`) ?? "")?.[1];
    for (const uid of line?.split(/\s+/) ?? []) if (uid) uids.add(Number(uid));
  }
  return uids;
}

/** What the host offers for a kernel memory limit: a cgroup v2 memory controller, or less. */
export function probeCgroup(read: (path: string) => string | undefined = readText): CgroupSupport {
  const controllers = read("/sys/fs/cgroup/cgroup.controllers");
  if (controllers !== undefined) {
    return controllers.split(/\s+/).includes("memory") ? "v2 with memory" : "v2 without memory";
  }
  const own = read("/proc/self/cgroup") ?? "";
  return own.split("\n").some((line) => line && !line.startsWith("0::")) ? "v1" : "none";
}

export interface IsolationFacts {
  platform: NodeJS.Platform;
  users: BrowserUsersPlan;
  cgroup: CgroupSupport;
  /** WAYFARER_BROWSER_MAX_MEMORY_MB; undefined: no limit. */
  memoryMb: number | undefined;
}

const OPT_IN = "WAYFARER_ALLOW_UNSANDBOXED_BROWSERS";

/**
 * Why the service must not start with this plan: strangers' browsers would run without
 * Chromium's sandbox and the operator has not said yes (`allowed`). Undefined: it may start. A
 * browser as a user that is not root without a sandbox does not start at all, so only root and
 * users per session are judged here.
 */
export function unsandboxedRefusal(plan: BrowserUsersPlan, allowed: boolean): string | undefined {
  if (allowed || plan.sandbox.works) return undefined;
  if (plan.kind === "service's user" && plan.uid !== 0) return undefined;
  const asRoot = plan.kind === "service's user";
  const who = asRoot
    ? `as root (${plan.because})`
    : `as users of their own, without Chromium's sandbox (${plan.sandbox.why})`;
  const fix = asRoot
    ? "give each browser a user of its own (WAYFARER_BROWSER_USERS=auto, a temp dir every user can traverse: mode 0711 or 1777)"
    : "give the host user namespaces, or the browser a setuid root chrome-sandbox beside it";
  return `every session's browser would run ${who}: a page that breaks out of its renderer would have ${asRoot ? "the host and every session" : "that user's rights"}. The service does not start so: ${fix}, or set ${OPT_IN}=1 to run so anyway`;
}

/** What /readyz says of the protections this host gives a session's browser. */
export type Protections = z.output<typeof ProtectionsSchema>;

export function protectionsOf(
  plan: BrowserUsersPlan,
  memoryMb: number | undefined,
  allowed: boolean,
): Protections {
  const { sandbox } = plan;
  return {
    cdp: "pipe",
    browserUsers:
      plan.kind === "per session" ? "per session" : plan.uid === 0 ? "root" : "service's user",
    sandbox: sandbox.works
      ? { on: true, by: sandbox.by }
      : { on: false, why: sandbox.why, ...(allowed ? { allowedBy: OPT_IN } : {}) },
    memory: { watchdogMb: memoryMb ?? null },
  };
}

/** The start-up lines, one each for what this host gives a session's browser and what it cannot. */
export function describeIsolation(facts: IsolationFacts): string[] {
  return [
    "isolation: CDP over a pipe: a browser listens on no port; clients reach it only through the service's CDP proxy",
    usersLine(facts.users, facts.platform),
    memoryLine(facts),
  ];
}

/** The start-up lines for the users BrowserUsers decided on and the watchdog's memory limit. */
export function isolationLines(
  users: BrowserUsersPlan,
  memoryMb: number | undefined,
  allowUnsandboxed = false,
): string[] {
  const lines = describeIsolation({
    platform: process.platform,
    users,
    cgroup: process.platform === "linux" ? probeCgroup() : "none",
    memoryMb,
  });
  if (allowUnsandboxed && !users.sandbox.works) {
    lines.push(`isolation: running browsers without Chromium's sandbox because ${OPT_IN}=1`);
  }
  return lines;
}

function usersLine(users: BrowserUsersPlan, platform: NodeJS.Platform): string {
  const { sandbox } = users;
  if (users.kind === "per session") {
    const who = `each session's browser runs as a user of its own (uid from ${users.first}-${users.last}, gid = uid, no other group), its folder its own (0700)`;
    return sandbox.works
      ? `isolation: ${who}, with Chromium's sandbox on (${sandbox.by})`
      : `isolation: ${who}, but without Chromium's sandbox: ${sandbox.why}; a page that breaks out of its renderer has that user's rights`;
  }
  const as =
    users.uid === 0
      ? "root"
      : users.uid === undefined
        ? "the service's account"
        : `the service's user (uid ${users.uid})`;
  const who = `every browser runs as ${as} (${users.because})`;
  if (users.uid === 0) {
    return `isolation: ${who}, without Chromium's sandbox: a page that breaks out of its renderer owns the host and every session`;
  }
  const apart =
    platform === "linux" || platform === "darwin"
      ? "; sessions' browsers are not kept apart by users, only by the sandbox"
      : "";
  return sandbox.works
    ? `isolation: ${who}, with Chromium's sandbox on (${sandbox.by})${apart}`
    : `isolation: ${who}, and Chromium's sandbox cannot work here (${sandbox.why}): browsers will not start`;
}

function memoryLine({ platform, cgroup, memoryMb }: IsolationFacts): string {
  if (platform !== "linux") {
    return `isolation: memory: no limit per browser on ${platform} (the watchdog reads /proc, and there are no cgroups)`;
  }
  const kernel = {
    "v2 with memory": "this host has a cgroup v2 memory controller, not used yet",
    "v2 without memory": "this host's cgroup v2 has no memory controller",
    v1: "no cgroup v2 here (cgroup v1 only)",
    none: "no cgroups here",
  }[cgroup];
  return memoryMb === undefined
    ? `isolation: memory: no limit per browser (WAYFARER_BROWSER_MAX_MEMORY_MB=0); ${kernel}`
    : `isolation: memory: a watchdog (WAYFARER_BROWSER_MAX_MEMORY_MB=${memoryMb}) ends a session whose browser holds more, at its next pass, not the kernel at once; ${kernel}`;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}
