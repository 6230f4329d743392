/**
 * What a service hosting browsers for strangers makes of `/start`'s `browser` field
 * (docs/guide/service.md, "The `browser` field"). Honoured: what changes only the caller's own
 * pages (viewport, locale, device scale, touch, certificate errors, downloads on or off).
 * Ignored with a line in the session's log: what a headless, pipe-driven browser has no use for
 * (a window, DevTools, a debugging port). Refused with a 400 naming the field: what would let a
 * caller run programs or reach the host (a binary, switches, folders, attaching to a browser),
 * unless the operator opts in, and what no opt-in allows (the sandbox off, a proxy around the
 * egress guard, a switch that runs a program). Switches of an allowed `args` that would weaken
 * what the service keeps (the sandbox, the pipe, the egress guard) are dropped, and noted.
 */
import { realpath } from "node:fs/promises";
import { z } from "zod";
import type { BrowserConfig, WireLaunchOptions } from "../api/startBrowser.js";
import { resolveExecutable } from "../browser/executable.js";
import { ServiceValidationError } from "../errors.js";
import type { AddressRule } from "../net/addressRule.js";
import { CdpHeadersSchema } from "../options.js";
import { pinCallerBrowser } from "./callerBrowser.js";
import type { SessionBrowser } from "./sessionBrowser.js";

/** Launch options a caller may set only when the operator lists them. */
export const OPT_IN_LAUNCH_OPTIONS = [
  "executablePath",
  "args",
  "ignoreDefaultArgs",
  "userDataDir",
  "downloadsPath",
] as const;
export type OptInLaunchOption = (typeof OPT_IN_LAUNCH_OPTIONS)[number];

/** What the operator lets callers choose of their browser. */
export interface BrowserPolicy {
  /** WAYFARER_ALLOW_LAUNCH_OPTIONS. */
  launchOptions: ReadonlySet<OptInLaunchOption>;
  /** WAYFARER_ALLOW_CALLER_CDP: a session may attach to a caller's own browser. */
  callerCdp: boolean;
}

export const NO_BROWSER_CHOICES: BrowserPolicy = { launchOptions: new Set(), callerCdp: false };

/** WAYFARER_ALLOW_LAUNCH_OPTIONS: a comma-separated list of OPT_IN_LAUNCH_OPTIONS. */
export const LaunchOptInSchema = z
  .string()
  .default("")
  .transform((value, ctx) => {
    const names = value
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    const known = new Set<string>(OPT_IN_LAUNCH_OPTIONS);
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length) {
      ctx.addIssue({
        code: "custom",
        message: `expected a comma-separated list of ${OPT_IN_LAUNCH_OPTIONS.join(", ")}; got ${unknown.join(", ")}`,
      });
      return z.NEVER;
    }
    return new Set(names as OptInLaunchOption[]);
  });

/** Why each opt-in option is refused by default. */
const RISK: Record<OptInLaunchOption, string> = {
  executablePath: "it runs a program of the caller's choosing on the service's host",
  args: "Chromium switches can run programs and write files on the service's host",
  ignoreDefaultArgs: "it drops the switches the service launches every browser with",
  userDataDir: "it names a folder on the service's host for the browser's profile",
  downloadsPath: "it names a folder on the service's host for the browser's downloads",
};

/**
 * Switches of an allowed `args` that are dropped, with a line in the session's log: each would
 * switch off part of Chromium's sandbox, open a way into the browser besides the service's pipe,
 * or take its traffic around the egress guard. Dropped rather than refused: clients send
 * `--no-sandbox` out of habit (the reference's own suite does on CI), and the service decides
 * the sandbox by its host.
 */
const DROPPED_SWITCHES: Record<string, string> = {
  "no-sandbox": "the sandbox",
  "disable-setuid-sandbox": "the sandbox",
  "disable-namespace-sandbox": "the sandbox",
  "disable-seccomp-filter-sandbox": "the sandbox",
  "disable-gpu-sandbox": "the sandbox",
  "no-zygote-sandbox": "the sandbox",
  "single-process": "the sandbox",
  "in-process-gpu": "the sandbox",
  "remote-debugging-port": "the CDP proxy",
  "remote-debugging-address": "the CDP proxy",
  "remote-debugging-pipe": "the CDP proxy",
  "remote-allow-origins": "the CDP proxy",
  "proxy-server": "the egress guard",
  "proxy-pac-url": "the egress guard",
  "proxy-auto-detect": "the egress guard",
  "no-proxy-server": "the egress guard",
  "proxy-bypass-list": "the egress guard",
};

/** Switches refused even where the operator allows `args`: each runs a program beside the browser, outside its sandbox. */
const REFUSED_SWITCHES = new Set([
  "renderer-cmd-prefix",
  "utility-cmd-prefix",
  "gpu-launcher",
  "plugin-launcher",
  "ppapi-plugin-launcher",
  "browser-subprocess-path",
]);

/** The device scale a page may ask for: beyond, a page's pictures grow with its square. */
export const SCALE_BOUNDS = { min: 0.5, max: 4 };
/** How long launching or attaching may take: the launch's own limit is the most. */
export const CONNECT_BOUNDS = { min: 1_000, max: 30_000 };
/** The smallest side of a viewport (as browserSettings.viewport). */
const MIN_SIDE = 100;
/** A BCP 47 language tag as browsers take one (and nothing a switch could misread). */
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,4}$/;

type Path = (string | number)[];
type Issue = { path: Path; message: string };

/** `/start`'s browser field as this service honours it; throws a 400 naming each refused field. */
export async function planBrowser(
  browser: BrowserConfig | undefined,
  policy: BrowserPolicy,
  rule: AddressRule,
): Promise<{ browser: SessionBrowser; viewport?: { width: number; height: number } }> {
  if (!browser) return { browser: { launch: {}, notes: [] } };
  if (browser.type === "browserbase") {
    refuse([
      {
        path: ["browser", "type"],
        message: 'this service hosts its own browsers: leave browser out, or use type "local"',
      },
    ]);
  }
  const issues: Issue[] = [];
  const notes: string[] = [];
  const options = browser.launchOptions ?? {};
  const at = (key: keyof WireLaunchOptions): Path => ["browser", "launchOptions", key];

  // What asks for nothing new is taken without an opt-in: the binary this service launches
  // anyway, switches that would all be dropped. The reference's own suite sends both on every
  // start (its CHROME_PATH, `--no-sandbox` on CI).
  const ownBinary =
    asked(options.executablePath) && !policy.launchOptions.has("executablePath")
      ? await isServiceBinary(options.executablePath as string)
      : false;
  if (ownBinary) notes.push("browser.launchOptions.executablePath is this service's own browser");
  const onlyDropped = (options.args ?? []).every((arg) => switchName(arg) in DROPPED_SWITCHES);
  for (const key of OPT_IN_LAUNCH_OPTIONS) {
    if (!asked(options[key]) || policy.launchOptions.has(key)) continue;
    if (key === "executablePath" && ownBinary) continue;
    if (key === "args" && onlyDropped) continue;
    issues.push({
      path: at(key),
      message: `not allowed on this service: ${RISK[key]} (its operator may allow it with WAYFARER_ALLOW_LAUNCH_OPTIONS=${key})`,
    });
  }
  for (const [i, arg] of (options.args ?? []).entries()) {
    if (REFUSED_SWITCHES.has(switchName(arg))) {
      issues.push({
        path: [...at("args"), i],
        message:
          "refused: it runs a program beside the browser, outside its sandbox; never allowed",
      });
    }
  }
  if (options.proxy) {
    issues.push({
      path: at("proxy"),
      message:
        "refused: every request of this service's browsers goes through its egress guard, which cannot pass them on to a proxy of yours; leave proxy out",
    });
  }
  if (options.chromiumSandbox === false) {
    issues.push({
      path: at("chromiumSandbox"),
      message: "refused: this service never switches Chromium's sandbox off",
    });
  }
  const scale = options.deviceScaleFactor;
  if (scale !== undefined && !(scale >= SCALE_BOUNDS.min && scale <= SCALE_BOUNDS.max)) {
    issues.push({
      path: at("deviceScaleFactor"),
      message: `expected ${SCALE_BOUNDS.min} to ${SCALE_BOUNDS.max}; got ${scale}`,
    });
  }
  if (options.locale !== undefined && !LOCALE.test(options.locale)) {
    issues.push({
      path: at("locale"),
      message: `expected a language tag such as en-US or de-DE; got ${JSON.stringify(options.locale.slice(0, 40))}`,
    });
  }
  const viewport = options.viewport && {
    width: Math.round(options.viewport.width),
    height: Math.round(options.viewport.height),
  };
  for (const side of ["width", "height"] as const) {
    if (viewport && !(viewport[side] >= MIN_SIDE)) {
      issues.push({
        path: [...at("viewport"), side],
        message: `expected at least ${MIN_SIDE} CSS pixels; got ${options.viewport?.[side]}`,
      });
    }
  }
  const connectTimeoutMs = connectTimeout(options.connectTimeoutMs, issues, notes);
  const given = callerAddress(browser, issues);
  const notAllowed =
    "not allowed on this service: its operator has not allowed attaching sessions to a caller's own browser (WAYFARER_ALLOW_CALLER_CDP=1)";
  if (given && !policy.callerCdp) issues.push({ path: given.path, message: notAllowed });
  const cdpHeaders = callerHeaders(options.cdpHeaders, issues);
  if (options.cdpHeaders && !policy.callerCdp && !given) {
    issues.push({ path: at("cdpHeaders"), message: notAllowed });
  }
  if (issues.length) refuse(issues);

  if (options.headless === false) {
    notes.push("browser.launchOptions.headless false ignored: this service runs headless browsers");
  }
  if (options.devtools) {
    notes.push("browser.launchOptions.devtools ignored: a headless browser has no DevTools window");
  }
  if (options.port !== undefined) {
    notes.push(
      "browser.launchOptions.port ignored: the browser listens on no port; cdpUrl in the answer is the way in",
    );
  }
  if (options.preserveUserDataDir !== undefined) {
    notes.push(
      "browser.launchOptions.preserveUserDataDir ignored: a profile the service made goes with the session, one you named (userDataDir) is never removed",
    );
  }
  const pages = {
    ...(options.locale ? { locale: options.locale } : {}),
    ...(scale !== undefined ? { deviceScaleFactor: scale } : {}),
    ...(options.hasTouch ? { hasTouch: true } : {}),
  };
  const downloads =
    options.acceptDownloads === false
      ? { deny: true as const }
      : options.downloadsPath
        ? { folder: options.downloadsPath }
        : undefined;
  const common = {
    ...(Object.keys(pages).length ? { pages } : {}),
    ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
    notes,
  };
  if (given) {
    const unused = Object.keys(options).filter((k) => !ATTACHED_KEYS.has(k));
    if (unused.length) {
      notes.push(
        `attached to your browser: launch options unused (it is launched already): ${unused.map((k) => `browser.launchOptions.${k}`).join(", ")}`,
      );
    }
    const url = await pinCallerBrowser(given.url, given.path, rule, connectTimeoutMs, cdpHeaders);
    const attach = { given: given.url, url, ...(cdpHeaders ? { headers: cdpHeaders } : {}) };
    return { browser: { launch: {}, attach, ...common }, viewport };
  }
  if (cdpHeaders) {
    notes.push("browser.launchOptions.cdpHeaders ignored: there is no cdpUrl to send them to");
  }
  const args = [
    ...keptArgs(options.args ?? [], notes),
    ...(options.locale ? [`--accept-lang=${options.locale}`] : []),
  ];
  const launch = {
    ...(options.executablePath && !ownBinary ? { executablePath: options.executablePath } : {}),
    ...(args.length ? { args } : {}),
    ...(asked(options.ignoreDefaultArgs) ? { ignoreDefaultArgs: options.ignoreDefaultArgs } : {}),
    ...(options.userDataDir ? { userDataDir: options.userDataDir } : {}),
    ...(options.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
  };
  return { browser: { launch, ...(downloads ? { downloads } : {}), ...common }, viewport };
}

/** Whether `path` is the very file this service launches its browsers from (links resolved). */
async function isServiceBinary(path: string): Promise<boolean> {
  try {
    const own = await resolveExecutable({ headful: false });
    const [given, ours] = await Promise.all([realpath(path), realpath(own.path)]);
    return given === ours;
  } catch {
    return false;
  }
}

/** What still applies to a browser the caller launched: its pages, and how long to wait. */
const ATTACHED_KEYS = new Set([
  "cdpUrl",
  "cdpHeaders",
  "connectTimeoutMs",
  "viewport",
  "locale",
  "deviceScaleFactor",
  "hasTouch",
]);

/** `args` without the switches the service keeps for itself (DROPPED_SWITCHES), each noted. */
function keptArgs(args: string[], notes: string[]): string[] {
  return args.filter((arg) => {
    const keeps = DROPPED_SWITCHES[switchName(arg)];
    if (keeps)
      notes.push(`browser.launchOptions.args: ${arg} dropped: the service keeps ${keeps} as it is`);
    return !keeps;
  });
}

/** A value that asks for something (`args: []`, `ignoreDefaultArgs: false` ask nothing). */
function asked(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== undefined && value !== false && value !== "";
}

/** `--Name=value`, `-name` → `name`: as Chromium reads a switch. */
function switchName(arg: string): string {
  const bare = arg.replace(/^-+/, "");
  const eq = bare.indexOf("=");
  return (eq === -1 ? bare : bare.slice(0, eq)).toLowerCase();
}

/** The caller's cdpHeaders, checked as the library checks them; undefined when none or refused. */
function callerHeaders(
  given: Record<string, string> | undefined,
  issues: Issue[],
): Record<string, string> | undefined {
  if (given === undefined) return undefined;
  const parsed = CdpHeadersSchema.safeParse(given);
  if (parsed.success) return Object.keys(parsed.data).length ? parsed.data : undefined;
  for (const issue of parsed.error.issues) {
    issues.push({
      path: ["browser", "launchOptions", "cdpHeaders", ...issue.path.map(String)],
      message: issue.message,
    });
  }
  return undefined;
}

/** The caller's browser to attach to, in either of the reference's spellings; one address only. */
function callerAddress(
  browser: BrowserConfig,
  issues: Issue[],
): { url: string; path: Path } | undefined {
  const outer = browser.cdpUrl || undefined;
  const inner = browser.launchOptions?.cdpUrl || undefined;
  if (outer && inner && outer !== inner) {
    issues.push({
      path: ["browser", "launchOptions", "cdpUrl"],
      message: "give your browser's address once: browser.cdpUrl or browser.launchOptions.cdpUrl",
    });
    return undefined;
  }
  if (outer) return { url: outer, path: ["browser", "cdpUrl"] };
  if (inner) return { url: inner, path: ["browser", "launchOptions", "cdpUrl"] };
  return undefined;
}

/** Brought within CONNECT_BOUNDS (a note says so); a value that is no duration is an issue. */
function connectTimeout(
  asked: number | undefined,
  issues: Issue[],
  notes: string[],
): number | undefined {
  if (asked === undefined) return undefined;
  if (!(asked > 0) || !Number.isFinite(asked)) {
    issues.push({
      path: ["browser", "launchOptions", "connectTimeoutMs"],
      message: `expected a positive number of milliseconds; got ${asked}`,
    });
    return undefined;
  }
  const bounded = Math.min(Math.max(Math.round(asked), CONNECT_BOUNDS.min), CONNECT_BOUNDS.max);
  if (bounded !== asked) {
    notes.push(
      `browser.launchOptions.connectTimeoutMs ${asked} brought to ${bounded} ms (this service takes ${CONNECT_BOUNDS.min} to ${CONNECT_BOUNDS.max})`,
    );
  }
  return bounded;
}

function refuse(issues: Issue[]): never {
  throw new ServiceValidationError("start body", issues);
}
