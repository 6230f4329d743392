/**
 * The environment a browser we launch gets: an allowlist, never the launching process's whole
 * environment. The process that launches Chromium may be the HTTP service, whose environment
 * holds every project's key, the model providers' keys and REDIS_URL with its password; a
 * function holds CRON_SECRET and its cloud credentials. A browser runs pages for strangers (and
 * over CDP a caller has full power over it), so what its processes can read must hold nothing of
 * ours. A renderer, the GPU process and the zygote inherit the browser's environment, so this is
 * the environment of every one of them.
 *
 * What is let through, and why:
 * - PATH: Chromium starts helpers by name (xdg-open, a crashpad handler) and a wrapper script
 *   (a distribution's `chromium`, a snap) finds its binary with it.
 * - HOME: NSS keeps its certificate database in ~/.pki; without HOME it falls back to the
 *   password file's home, which a function's user may lack. The serverless pack sets HOME to the
 *   temp dir when it is missing (@sparticuz/chromium's helper.js): we use the launch's own folder.
 * - TMPDIR: set by the launcher to the launch's own folder (launch.ts), not inherited.
 * - Locale and time (LANG, LANGUAGE, LC_*, TZ, TZDIR): the page's language, number and date
 *   formats and Intl follow them as a person's browser would.
 * - Fonts (FONTCONFIG_*): where fontconfig finds its configuration; the pack's own fonts are
 *   given this way on a host with none.
 * - Libraries (LD_LIBRARY_PATH): the pack's binary links NSS, NSPR and expat from its own
 *   folder (chromiumPack.ts adds it); a system Chrome in a custom prefix may need it too.
 * - Display (DISPLAY, XAUTHORITY, WAYLAND_DISPLAY, XDG_SESSION_TYPE; XDG_RUNTIME_DIR only with
 *   WAYLAND_DISPLAY, since the session bus sits there too): a headful browser opens its window
 *   there (Xvfb in CI); Chromium picks X11 or Wayland from them.
 * - XDG base folders (XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME, XDG_DATA_DIRS,
 *   XDG_CONFIG_DIRS): where fontconfig and GTK read user fonts and settings.
 * - CHROME_DEVEL_SANDBOX: where a system Chrome finds its setuid sandbox on hosts without user
 *   namespaces.
 * - Windows' own (SYSTEMROOT, WINDIR, TEMP, TMP, USERPROFILE, APPDATA, LOCALAPPDATA, PROGRAMDATA,
 *   PROGRAMFILES…, HOMEDRIVE, HOMEPATH, PATHEXT, COMSPEC): without SYSTEMROOT, Winsock and the
 *   crypto provider fail to load.
 *
 * Left out on purpose, although Chromium reads them: proxy variables (http_proxy, HTTPS_PROXY…:
 * a proxy URL may hold a password; use `localBrowserLaunchOptions.proxy`), GOOGLE_API_KEY and
 * GOOGLE_DEFAULT_CLIENT_* (keys), DBUS_SESSION_BUS_ADDRESS (the user's session bus) and
 * SSLKEYLOGFILE (it would write the browser's TLS keys to a file).
 */

const NAMES = new Set([
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TZDIR",
  "LD_LIBRARY_PATH",
  "DISPLAY",
  "XAUTHORITY",
  "WAYLAND_DISPLAY",
  "XDG_RUNTIME_DIR",
  "XDG_SESSION_TYPE",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_DATA_DIRS",
  "XDG_CONFIG_DIRS",
  "CHROME_DEVEL_SANDBOX",
  // Windows (its variable names are case-insensitive: compared in upper case).
  "SYSTEMROOT",
  "WINDIR",
  "SYSTEMDRIVE",
  "TEMP",
  "TMP",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "PROGRAMDATA",
  "PROGRAMFILES",
  "PROGRAMFILES(X86)",
  "PROGRAMW6432",
  "COMMONPROGRAMFILES",
  "COMMONPROGRAMFILES(X86)",
  "HOMEDRIVE",
  "HOMEPATH",
  "PATHEXT",
  "COMSPEC",
]);

/** Whole families: every LC_ category, every fontconfig setting. */
const PREFIXES = ["LC_", "FONTCONFIG_"];

/** Whether a variable of this name may reach the browser. */
export function allowedInBrowser(name: string): boolean {
  const upper = name.toUpperCase();
  return NAMES.has(upper) || PREFIXES.some((p) => upper.startsWith(p));
}

export interface BrowserEnvInput {
  /** The launching process's environment, which only the allowlist passes. */
  inherited: NodeJS.ProcessEnv;
  /** What the chosen binary needs (the pack's libraries and fonts): set by us, kept as is. */
  executable: Record<string, string>;
  /** The launch's own temp folder: the browser's TMPDIR, and its HOME when there is none. */
  tmp: string;
  /**
   * A home of its own, for a browser run as another user than ours: our home and its XDG
   * folders are not its to read or write.
   */
  home?: string;
}

/** The browser's whole environment (passed on, not read: no variable here configures us). */
export function browserEnv({
  inherited,
  executable,
  tmp,
  home,
}: BrowserEnvInput): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (value !== undefined && allowedInBrowser(name)) passed[name] = value;
  }
  // libdbus finds the user's session bus at $XDG_RUNTIME_DIR/bus: the folder goes only to a
  // browser that needs it for its Wayland socket.
  if (!passed.WAYLAND_DISPLAY) delete passed.XDG_RUNTIME_DIR;
  Object.assign(passed, executable);
  if (home) {
    passed.HOME = home;
    for (const name of ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"]) delete passed[name];
  }
  passed.HOME ||= tmp;
  passed.TMPDIR = tmp;
  // macOS's Chromium reads MAC_CHROMIUM_TMPDIR before its system temp dir.
  passed.MAC_CHROMIUM_TMPDIR = tmp;
  return passed;
}
