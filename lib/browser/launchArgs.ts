/**
 * The Chromium command line, built in one place. Order: the reference's defaults, then the
 * launcher's own, then the user's; a later value of the same switch wins, feature lists merge.
 * Two profiles: "local" (multi-process, site isolation) and "serverless" (one process).
 */
import type { ResolvedLaunchOptions } from "../options.js";

export type LaunchProfile = "local" | "serverless";

/** The interface reference's defaults, added before everything else. */
export const REFERENCE_DEFAULT_ARGS = [
  "--remote-allow-origins=*",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-dev-shm-usage",
  "--site-per-process",
];

/** The launcher's own: keep an automated browser quiet, predictable and in the foreground. */
export const LAUNCHER_DEFAULT_ARGS = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-background-timer-throttling",
  "--disable-backgrounding-occluded-windows",
  "--disable-renderer-backgrounding",
  "--disable-breakpad",
  "--disable-client-side-phishing-detection",
  "--disable-default-apps",
  "--disable-extensions",
  "--disable-hang-monitor",
  "--disable-popup-blocking",
  "--disable-prompt-on-repost",
  "--disable-search-engine-choice-screen",
  "--disable-domain-reliability",
  "--metrics-recording-only",
  "--password-store=basic",
  "--use-mock-keychain",
  "--no-service-autorun",
  "--disable-features=Translate,MediaRouter,OptimizationHints,AcceptCHFrame",
  // RenderDocument gives a same-site navigation a new document host in the old one's process;
  // DevTools then follows the new host, which cannot commit while the old document waits on a
  // dialog, and refuses to settle that dialog ("Not attached to an active page"): a page
  // raising dialogs in that moment keeps its tab from leaving (test/browser/dialogTrap.test.ts).
  "--disable-features=RenderDocument",
];

/**
 * The serverless pack's flags that we keep, each for a reason docs/guide/client.md gives. Dropped from
 * the pack's list: --disable-web-security, --disable-site-isolation-trials,
 * --allow-running-insecure-content, the IsolateOrigins/site-per-process feature switches and
 * SharedArrayBuffer without cross-origin isolation: a browser that visits arbitrary pages keeps
 * the same-origin policy.
 */
export const SERVERLESS_ARGS = [
  "--single-process",
  "--no-zygote",
  "--no-sandbox",
  "--disable-setuid-sandbox",
  "--in-process-gpu",
  "--ignore-gpu-blocklist",
  "--use-gl=angle",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--disable-features=AudioServiceOutOfProcess",
  "--disk-cache-size=33554432",
  "--font-render-hinting=none",
  "--no-pings",
  "--disable-print-preview",
];

/** Never emitted, whoever asks: each one switches part of web security off. */
const FORBIDDEN_SWITCHES = new Set([
  "--disable-web-security",
  "--disable-site-isolation-trials",
  "--disable-site-isolation-for-policy",
  "--allow-running-insecure-content",
  "--allow-file-access-from-files",
  "--unsafely-treat-insecure-origin-as-secure",
  "--reduce-security-for-testing",
]);
/** Feature names (compared case-insensitively) whose disabling weakens site isolation. */
const FORBIDDEN_FEATURES = new Set(["isolateorigins", "site-per-process", "siteperprocess"]);

const DEFAULT_WINDOW = { width: 1280, height: 720 };
const WEBRTC_POLICY = "--force-webrtc-ip-handling-policy";

export interface CommandLineInput {
  options: ResolvedLaunchOptions;
  profile: LaunchProfile;
  userDataDir: string;
  /** Chromium refuses to start its sandbox as root: off then, on for everyone else. */
  noSandbox: boolean;
  /**
   * CDP over a pipe (the service's browsers): no debugging port at all, and no switch of the
   * caller's may open one.
   */
  pipe?: boolean;
}

/** Switches that open a way into the browser besides the launcher's own. */
const DEBUGGING_SWITCHES = new Set([
  "--remote-debugging-port",
  "--remote-debugging-address",
  "--remote-debugging-pipe",
  "--remote-allow-origins",
]);

export interface CommandLine {
  args: string[];
  /** Switches the caller asked for that were refused because they weaken web security. */
  refused: string[];
}

export function buildCommandLine(input: CommandLineInput): CommandLine {
  const { options, profile } = input;
  const headless = options.headless && !options.devtools;
  const drop = new Set(Array.isArray(options.ignoreDefaultArgs) ? options.ignoreDefaultArgs : []);
  const optional =
    options.ignoreDefaultArgs === true
      ? []
      : [
          ...REFERENCE_DEFAULT_ARGS.filter(
            (a) =>
              (profile === "local" || a !== "--site-per-process") &&
              !(input.pipe && a.startsWith("--remote-allow-origins")),
          ),
          ...LAUNCHER_DEFAULT_ARGS,
          ...(profile === "serverless" ? SERVERLESS_ARGS : []),
        ].filter((a) => !drop.has(a));

  const fromOptions: string[] = [];
  const window = options.viewport ?? DEFAULT_WINDOW;
  if (headless) fromOptions.push("--headless", "--hide-scrollbars", "--mute-audio");
  if (options.devtools) fromOptions.push("--auto-open-devtools-for-tabs");
  fromOptions.push(`--window-size=${window.width},${window.height}`);
  if (options.proxy) {
    fromOptions.push(`--proxy-server=${options.proxy.server}`);
    if (options.proxy.bypass) fromOptions.push(`--proxy-bypass-list=${options.proxy.bypass}`);
  }
  if (options.ignoreHTTPSErrors) fromOptions.push("--ignore-certificate-errors");

  // What the launcher needs to drive the browser: never dropped by ignoreDefaultArgs.
  const required = [
    input.pipe ? "--remote-debugging-pipe" : `--remote-debugging-port=${options.port ?? 0}`,
    `--user-data-dir=${input.userDataDir}`,
  ];
  if (input.noSandbox) required.push("--no-sandbox");
  // WebRTC sends its UDP (STUN, TURN, peer traffic) beside the proxy, to any address a page
  // names: a browser given a proxy, such as the egress guard, sends nothing around it. WebRTC
  // still works through a TURN server over TCP, which goes through the proxy.
  if (options.proxy) required.push(`${WEBRTC_POLICY}=disable_non_proxied_udp`);

  const refused: string[] = [];
  const user = options.args.map(canonical).filter((a) => {
    const name = switchName(a);
    const bad =
      FORBIDDEN_SWITCHES.has(name) || (input.pipe === true && DEBUGGING_SWITCHES.has(name));
    if (bad) refused.push(a);
    return !bad;
  });
  const merged = mergeSwitches([
    ...optional,
    ...fromOptions.filter((a) => !drop.has(a)),
    ...user,
    ...required,
  ]);
  // No startup window: the first page is opened over CDP once we are attached, which is faster
  // than attaching to a page that is already loading (measured in bench/launch.bench.ts).
  return {
    args: [...merged.args, "--no-startup-window"],
    refused: [...refused, ...merged.refused],
  };
}

/** Chromium reads `-name` like `--name`; we always write and compare the `--` form. */
function canonical(arg: string): string {
  return arg.startsWith("-") ? `--${arg.replace(/^-+/, "")}` : arg;
}

function switchName(arg: string): string {
  const eq = arg.indexOf("=");
  return (eq === -1 ? arg : arg.slice(0, eq)).toLowerCase();
}

/** Later switches replace earlier ones of the same name; feature lists are unions. */
function mergeSwitches(args: string[]): CommandLine {
  const bySwitch = new Map<string, string>();
  const features = {
    "--enable-features": new Set<string>(),
    "--disable-features": new Set<string>(),
  };
  const refused: string[] = [];
  for (const arg of args) {
    const name = switchName(arg);
    if (name === "--enable-features" || name === "--disable-features") {
      for (const f of arg.slice(name.length + 1).split(",")) {
        if (!f) continue;
        if (name === "--disable-features" && FORBIDDEN_FEATURES.has(f.toLowerCase()))
          refused.push(`${name}=${f}`);
        else features[name].add(f);
      }
      if (!bySwitch.has(name)) bySwitch.set(name, "");
      continue;
    }
    bySwitch.delete(name); // keep insertion order of the last occurrence
    bySwitch.set(name, arg);
  }
  const out: string[] = [];
  for (const [name, arg] of bySwitch) {
    if (name === "--enable-features" || name === "--disable-features") {
      const list = [...features[name]];
      if (list.length) out.push(`${name}=${list.join(",")}`);
    } else out.push(arg);
  }
  return { args: out, refused };
}
