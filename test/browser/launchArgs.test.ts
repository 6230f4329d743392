import { describe, expect, it } from "vitest";
import {
  buildCommandLine,
  LAUNCHER_DEFAULT_ARGS,
  type LaunchProfile,
  REFERENCE_DEFAULT_ARGS,
} from "../../lib/browser/launchArgs.js";
import {
  type LocalBrowserLaunchOptions,
  LocalBrowserLaunchOptionsSchema,
} from "../../lib/options.js";

function build(
  options: LocalBrowserLaunchOptions = {},
  profile: LaunchProfile = "local",
  noSandbox = false,
  pipe = false,
) {
  return buildCommandLine({
    options: LocalBrowserLaunchOptionsSchema.parse(options),
    profile,
    userDataDir: "/tmp/profile",
    noSandbox,
    pipe,
  });
}

const INSECURE = [
  "--disable-web-security",
  "--disable-site-isolation-trials",
  "--allow-running-insecure-content",
];

describe("command line", () => {
  it("puts the reference's defaults first, then the launcher's, then the user's", () => {
    const { args } = build({ args: ["--lang=fr"] });
    expect(args.slice(0, REFERENCE_DEFAULT_ARGS.length)).toEqual(REFERENCE_DEFAULT_ARGS);
    expect(args.indexOf("--disable-sync")).toBeGreaterThan(args.indexOf("--site-per-process"));
    expect(args.indexOf("--lang=fr")).toBeGreaterThan(args.indexOf("--disable-sync"));
    expect(args.at(-1)).toBe("--no-startup-window");
  });

  it("lets a later value of a switch win and merges feature lists", () => {
    const { args } = build({
      args: ["--window-size=1000,500", "--disable-features=Foo", "--enable-features=Bar"],
    });
    expect(args.filter((a) => a.startsWith("--window-size="))).toEqual(["--window-size=1000,500"]);
    const disabled = args.filter((a) => a.startsWith("--disable-features="));
    expect(disabled).toHaveLength(1);
    expect(disabled[0]).toContain("Translate");
    expect(disabled[0]).toContain("Foo");
    expect(args).toContain("--enable-features=Bar");
  });

  it("never emits a switch that turns web security off, and reports it", () => {
    const { args, refused } = build({
      args: [...INSECURE, "--disable-features=IsolateOrigins,site-per-process,Other"],
    });
    for (const flag of INSECURE) expect(args).not.toContain(flag);
    expect(args.join(" ")).not.toMatch(/IsolateOrigins|=site-per-process/);
    expect(refused).toEqual([
      ...INSECURE,
      "--disable-features=IsolateOrigins",
      "--disable-features=site-per-process",
    ]);
  });

  it("reads single-dash switches as Chromium does, and refuses the insecure ones in any spelling", () => {
    const { args, refused } = build({
      args: [
        "-disable-web-security",
        "--Disable-Web-Security",
        "-disable-features=SitePerProcess,Ok",
        "--allow-file-access-from-files",
        "--unsafely-treat-insecure-origin-as-secure=http://a.test",
        "--reduce-security-for-testing",
        "-lang=fr",
      ],
    });
    expect(args.join(" ").toLowerCase()).not.toMatch(
      /web-security|siteperprocess|file-access|insecure-origin|reduce-security/,
    );
    expect(args).toContain("--lang=fr");
    expect(args.find((a) => a.startsWith("--disable-features="))).toContain("Ok");
    expect(refused).toHaveLength(6);
  });

  it("serverless profile: one process, software GL, no site-per-process, no insecure flags", () => {
    const { args } = build({}, "serverless");
    expect(args).toEqual(
      expect.arrayContaining(["--single-process", "--no-zygote", "--use-angle=swiftshader"]),
    );
    expect(args).not.toContain("--site-per-process");
    for (const flag of INSECURE) expect(args).not.toContain(flag);
    expect(args.join(" ")).not.toContain("SharedArrayBuffer");
    expect(args).toContain("--remote-allow-origins=*");
  });

  it("ignoreDefaultArgs: true keeps only what drives the browser and what the options ask for", () => {
    const { args } = build(
      { ignoreDefaultArgs: true, viewport: { width: 640, height: 480 } },
      "local",
      true,
    );
    for (const flag of [...REFERENCE_DEFAULT_ARGS, ...LAUNCHER_DEFAULT_ARGS])
      expect(args).not.toContain(flag);
    expect(args).toEqual(
      expect.arrayContaining([
        "--remote-debugging-port=0",
        "--user-data-dir=/tmp/profile",
        "--no-sandbox",
        "--headless",
        "--window-size=640,480",
      ]),
    );
  });

  it("maps options to switches", () => {
    const { args } = build({
      headless: false,
      devtools: true,
      port: 9333,
      proxy: { server: "http://127.0.0.1:8080", bypass: "*.internal" },
      ignoreHTTPSErrors: true,
    });
    expect(args).not.toContain("--headless");
    expect(args).toEqual(
      expect.arrayContaining([
        "--auto-open-devtools-for-tabs",
        "--remote-debugging-port=9333",
        "--proxy-server=http://127.0.0.1:8080",
        "--proxy-bypass-list=*.internal",
        "--ignore-certificate-errors",
      ]),
    );
  });

  it("with a proxy, WebRTC sends no UDP around it, whatever the user's arguments say", () => {
    const policy = "--force-webrtc-ip-handling-policy=disable_non_proxied_udp";
    expect(build({}).args.some((a) => a.startsWith("--force-webrtc"))).toBe(false);
    const proxied = build({
      proxy: { server: "http://127.0.0.1:8080" },
      args: ["--force-webrtc-ip-handling-policy=default"],
      ignoreDefaultArgs: true,
    }).args;
    expect(proxied.filter((a) => a.startsWith("--force-webrtc"))).toEqual([policy]);
  });

  it("keeps the sandbox unless running as root", () => {
    expect(build({}, "local", false).args).not.toContain("--no-sandbox");
    expect(build({}, "local", true).args).toContain("--no-sandbox");
  });
});

describe("a browser driven over a pipe (the service's)", () => {
  it("listens on no port and lets no page's origin in, whatever the caller's switches say", () => {
    const { args, refused } = build(
      {
        args: [
          "--remote-debugging-port=9222",
          "-remote-debugging-address=0.0.0.0",
          "--remote-allow-origins=*",
          "--remote-debugging-pipe=cbor",
        ],
      },
      "local",
      false,
      true,
    );
    expect(args).toContain("--remote-debugging-pipe");
    expect(args.filter((a) => a.startsWith("--remote-"))).toEqual(["--remote-debugging-pipe"]);
    expect(refused).toEqual([
      "--remote-debugging-port=9222",
      "--remote-debugging-address=0.0.0.0",
      "--remote-allow-origins=*",
      "--remote-debugging-pipe=cbor",
    ]);
  });

  it("keeps the port (and the reference's origins rule) for the library's own browsers", () => {
    const { args } = build({ args: ["--remote-debugging-port=9333"] });
    expect(args).toContain("--remote-debugging-port=0");
    expect(args).toContain("--remote-allow-origins=*");
  });
});
