/**
 * The CDP policy of the service's CDP proxy: every command a remote client sends over
 * `connectUrl` is judged here before it reaches the session's browser. CDP drives a browser
 * process on the service's host, so a command that would reach outside that browser (the host's
 * files, its network around the egress guard, its processes and devices) is refused or
 * rewritten; everything else passes, because v3 clients and Playwright's `connectOverCDP` use
 * most of the protocol. The decisions and their reasons: docs/architecture/security.md,
 * "The CDP policy".
 */
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { z } from "zod";

export interface CdpScope {
  /** The session's downloads folder: every download behaviour is pinned here. */
  downloadsDir: string;
  /** The only folder file inputs may take files from (the session's own folder). */
  filesDir: string;
}

export type CdpVerdict =
  | { allow: true; params?: Record<string, unknown> } // params present = rewritten params to send instead
  | { allow: false; message: string }; // message starts "Wayfarer refuses <Method>: "

/** A rule's answer: nothing to pass unchanged, a reason to refuse, or the params to send instead. */
type Outcome = string | { params: Record<string, unknown> } | undefined;
type Rule = (params: unknown, scope: CdpScope) => Outcome;

const PASS: CdpVerdict = Object.freeze({ allow: true as const });
/** Longer paths than the host's PATH_MAX cannot name a file; they are refused before any I/O. */
const MAX_PATH = 4096;
/** File-command paths and folder entries checked per command: the checks are synchronous I/O. */
const MAX_FILES = 1000;
const MAX_FOLDER_ENTRIES = 5000;
/** Chromium reads at most 256 KiB of response headers; a raw response is judged on as much. */
const RAW_HEAD_BASE64 = Math.ceil((256 * 1024) / 3) * 4;
const PAGE_SCHEMES = "http:, https:, data:, blob: and about:blank";

/** Judges one command of a remote client: pass, pass with rewritten params, or refuse. */
export function judgeCdpCommand(method: string, params: unknown, scope: CdpScope): CdpVerdict {
  if (typeof method !== "string") {
    return { allow: false, message: "Wayfarer refuses a command without a method name" };
  }
  try {
    const rule = RULES.get(method);
    if (rule) return verdict(method, rule(params ?? undefined, scope));
    const dot = method.indexOf(".");
    const domain = dot > 0 ? REFUSED_DOMAINS.get(method.slice(0, dot)) : undefined;
    return domain ? refusal(method, domain) : PASS;
  } catch {
    // A rule never throws on JSON; anything else it was handed is refused, not passed unjudged.
    return refusal(method, "its parameters could not be judged");
  }
}

function verdict(method: string, outcome: Outcome): CdpVerdict {
  if (outcome === undefined) return PASS;
  if (typeof outcome === "string") return refusal(method, outcome);
  return { allow: true, params: outcome.params };
}

function refusal(method: string, why: string): CdpVerdict {
  return { allow: false, message: `Wayfarer refuses ${method.slice(0, 100)}: ${why}` };
}

const CRASH =
  "a crash on purpose can leave a core dump or crash report on the host; end pages with Target.closeTarget and the browser with Browser.close";
const MODULES =
  "a sampling profile lists the process's loaded modules: host paths and the addresses they are loaded at";
const TRUSTED_BLOB =
  "the renderer takes this binary as trusted; a crafted one runs native code in the browser";

/** Commands that reach outside the browser whatever their parameters. */
const ALWAYS_REFUSED: [string, string][] = [
  [
    "Target.exposeDevToolsProtocol",
    "it gives a page a CDP channel of its own that does not pass this proxy",
  ],
  [
    "Target.sendMessageToTarget",
    "it carries commands inside a string, past this policy; attach with flatten: true and send with sessionId",
  ],
  [
    "Target.setRemoteLocations",
    "it makes the browser connect to a host and port of the caller's choosing",
  ],
  ["Target.openDevTools", "the DevTools window is a privileged page that can read local files"],
  [
    "Browser.getBrowserCommandLine",
    "the command line names the host's folders and the session's proxy",
  ],
  ["Browser.crash", CRASH],
  ["Browser.crashGpuProcess", CRASH],
  ["Page.crash", CRASH],
  ["Memory.getBrowserSamplingProfile", MODULES],
  ["Memory.getAllTimeSamplingProfile", MODULES],
  ["Memory.getSamplingProfile", MODULES],
  ["Page.addCompilationCache", `it seeds V8 with compiled code: ${TRUSTED_BLOB}`],
  ["LayerTree.loadSnapshot", `it loads Skia pictures: ${TRUSTED_BLOB}`],
];

/** Whole domains that act on the host rather than on the browser. */
const REFUSED_DOMAINS = new Map<string, string>([
  ["SystemInfo", "it describes the host: its processes, GPU and hardware"],
  ["Extensions", "it installs extensions from host folders"],
  ["PWA", "it installs and launches apps through the host's system"],
  ["Cast", "it finds and streams to devices on the host's local network"],
  ["Tethering", "it opens a listening port on the host"],
  ["DeviceAccess", "it hands a page a device of the host (Bluetooth, USB, HID, serial)"],
]);

/** The first issue of a failed parse, named by its place in the params. */
function parse<T>(schema: z.ZodType<T>, params: unknown): { data: T } | string {
  const result = schema.safeParse(params);
  if (result.success) return { data: result.data };
  const issue = result.error.issues[0]!;
  return `${["params", ...issue.path.map(String)].join(".")}: ${issue.message}`;
}

function quote(value: string): string {
  return JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);
}

// ---- URLs -------------------------------------------------------------------------------------

/** Judged on the scheme the WHATWG parser gives, which is the one Chromium's parser gives too. */
function schemeAllowed(url: URL): boolean {
  switch (url.protocol) {
    case "http:":
    case "https:":
    case "data:":
      return true;
    case "about:":
      // Any other about: page is one of Chromium's own (about:version is chrome://version).
      return url.pathname === "blank" || url.pathname === "srcdoc";
    case "blob:": {
      const inner = URL.parse(url.pathname);
      if (inner) return inner.protocol === "http:" || inner.protocol === "https:";
      return url.pathname.startsWith("null/"); // a blob of an opaque origin (a data: page)
    }
    default:
      return false;
  }
}

function urlRefusal(field: string, raw: string): string | undefined {
  const url = URL.parse(raw);
  if (!url) return `${field} ${quote(raw)} is not an absolute URL`;
  if (schemeAllowed(url)) return undefined;
  return `${field} ${quote(raw)} is a ${url.protocol} URL; a session's browser opens only ${PAGE_SCHEMES}`;
}

/** A navigation or new page: `blank` allows "", which Target.createTarget reads as about:blank. */
function urlRule(blank: boolean): Rule {
  const schema = z.object({ url: z.string() });
  return (params) => {
    const parsed = parse(schema, params);
    if (typeof parsed === "string") return parsed;
    if (blank && parsed.data.url === "") return undefined;
    return urlRefusal("url", parsed.data.url);
  };
}

/** A redirect is only as far as its Location: a relative one stays on the request's scheme. */
function locationRefusal(name: string, value: string): string | undefined {
  if (name.trim().toLowerCase() !== "location") return undefined;
  const url = URL.parse(value);
  if (!url || schemeAllowed(url)) return undefined;
  return `a Location header to ${quote(value)} redirects to a ${url.protocol} URL; a session's browser opens only ${PAGE_SCHEMES}`;
}

/** `Name: value` lines (the binary header form and a raw response's head). */
function headerLinesRefusal(lines: string[]): string | undefined {
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const why = locationRefusal(line.slice(0, colon), line.slice(colon + 1));
    if (why) return why;
  }
  return undefined;
}

const headerList = z.array(z.object({ name: z.string(), value: z.string() })).optional();
const responseHeadersSchema = z.object({
  responseHeaders: headerList,
  binaryResponseHeaders: z.string().optional(),
});

const responseHeadersRule: Rule = (params) => {
  const parsed = parse(responseHeadersSchema, params);
  if (typeof parsed === "string") return parsed;
  for (const { name, value } of parsed.data.responseHeaders ?? []) {
    const why = locationRefusal(name, value);
    if (why) return why;
  }
  const binary = parsed.data.binaryResponseHeaders;
  if (binary === undefined) return undefined;
  return headerLinesRefusal(Buffer.from(binary, "base64").toString("latin1").split("\0"));
};

const continueRequestSchema = z.object({ url: z.string().optional() });

const continueRequestRule: Rule = (params) => {
  const parsed = parse(continueRequestSchema, params);
  if (typeof parsed === "string") return parsed;
  return parsed.data.url === undefined ? undefined : urlRefusal("url", parsed.data.url);
};

const interceptedRequestSchema = z.object({
  url: z.string().optional(),
  rawResponse: z.string().optional(),
});

const interceptedRequestRule: Rule = (params) => {
  const parsed = parse(interceptedRequestSchema, params);
  if (typeof parsed === "string") return parsed;
  const { url, rawResponse } = parsed.data;
  if (url !== undefined) {
    const why = urlRefusal("url", url);
    if (why) return why;
  }
  if (rawResponse === undefined) return undefined;
  const head = Buffer.from(rawResponse.slice(0, RAW_HEAD_BASE64), "base64").toString("latin1");
  const end = head.search(/\r?\n\r?\n/);
  if (end < 0 && rawResponse.length > RAW_HEAD_BASE64) {
    return "rawResponse has more than 256 KiB of headers";
  }
  return headerLinesRefusal((end < 0 ? head : head.slice(0, end)).split(/\r?\n/));
};

// ---- Downloads, contexts, tracing --------------------------------------------------------------

/**
 * Every behaviour that saves a file saves it in the session's downloads folder, whatever folder
 * was asked. "default" would be the browser's own choice (its profile's setting or the Downloads
 * folder of the user it runs as, outside the session), so it becomes "allow" there too.
 */
function downloadRule(behaviours: readonly [string, ...string[]]): Rule {
  const schema = z.object({ behavior: z.enum(behaviours) });
  return (params, scope) => {
    const parsed = parse(schema, params);
    if (typeof parsed === "string") return parsed;
    const { downloadPath: _asked, ...rest } = params as Record<string, unknown>;
    const behavior = parsed.data.behavior;
    if (behavior === "deny") return _asked === undefined ? undefined : { params: rest };
    return {
      params: {
        ...rest,
        behavior: behavior === "default" ? "allow" : behavior,
        downloadPath: scope.downloadsDir,
      },
    };
  };
}

const CONTEXT_FIELDS: [string, string][] = [
  ["proxyServer", "every context of a session's browser stays behind the service's egress guard"],
  [
    "proxyBypassList",
    "every context of a session's browser stays behind the service's egress guard",
  ],
  ["originsWithUniversalNetworkAccess", "it lifts the same-origin policy for the origins it lists"],
];

const createContextRule: Rule = (params) => {
  if (params === undefined) return undefined;
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    return "params: expected an object";
  }
  for (const [field, why] of CONTEXT_FIELDS) {
    if (Object.hasOwn(params, field)) return `${field} is not allowed: ${why}`;
  }
  return undefined;
};

const tracingSchema = z
  .object({
    tracingBackend: z.string().optional(),
    options: z.string().optional(),
    traceConfig: z
      .object({ recordMode: z.string().optional(), enableSystrace: z.boolean().optional() })
      .optional(),
  })
  .optional();

const tracingRule: Rule = (params) => {
  const parsed = parse(tracingSchema, params);
  if (typeof parsed === "string") return parsed;
  const { tracingBackend, options, traceConfig } = parsed.data ?? {};
  if (Object.hasOwn((params as object | undefined) ?? {}, "perfettoConfig")) {
    return "perfettoConfig is not allowed: it can pick the host's system tracing service or name a file for the trace; use categories or traceConfig";
  }
  if (tracingBackend !== undefined && tracingBackend !== "auto" && tracingBackend !== "chrome") {
    return `tracingBackend ${quote(tracingBackend)} is not allowed: only "chrome" (or "auto"), the browser's own tracing; "system" connects to the host's tracing service`;
  }
  const legacy = options?.split(",").map((o) => o.trim()) ?? [];
  if (traceConfig?.recordMode === "echoToConsole" || legacy.includes("trace-to-console")) {
    return "echoing trace events to the console writes them into the host's logs; record them and read the trace back";
  }
  if (traceConfig?.enableSystrace === true || legacy.includes("enable-systrace")) {
    return "system tracing records the host's kernel and processes";
  }
  return undefined;
};

// ---- Files ------------------------------------------------------------------------------------

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The real path `path` names: its links resolved, and for a path that does not exist (yet), the
 * real path of its nearest existing folder with the rest appended. Undefined where a part exists
 * but does not resolve (a dangling link, a loop, a folder we may not read): refused, as it could
 * come to resolve anywhere.
 */
function realPathOf(path: string): string | undefined {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch {
      let entry: ReturnType<typeof lstatSync> | undefined;
      try {
        entry = lstatSync(current, { throwIfNoEntry: false });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") return undefined;
      }
      if (entry) return undefined;
      const parent = dirname(current);
      if (parent === current) return undefined;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/**
 * A folder (Playwright sends one for a directory input) is read by the browser entry by entry,
 * so a link inside it must stay inside too.
 */
function folderRefusal(real: string, realRoot: string, shown: string): string | undefined {
  if (!statSync(real, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const folders = [real];
  let seen = 0;
  while (folders.length > 0) {
    const folder = folders.pop()!;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (++seen > MAX_FOLDER_ENTRIES) {
        return `${shown} holds more than ${MAX_FOLDER_ENTRIES} entries to check`;
      }
      const path = join(folder, entry.name);
      if (entry.isDirectory()) folders.push(path);
      else if (entry.isSymbolicLink()) {
        const target = realPathOf(path);
        if (!target || !within(realRoot, target)) {
          return `${shown} holds a link that leads outside the session's folder`;
        }
      }
    }
  }
  return undefined;
}

function fileRefusal(raw: string, scope: CdpScope): string | undefined {
  const shown = quote(raw);
  if (raw.length > MAX_PATH) return `a path is longer than ${MAX_PATH} characters`;
  if (raw.includes("\0")) return `${shown} holds a NUL character`;
  if (!isAbsolute(raw)) {
    return `${shown} is not an absolute path (the browser would read it from its own working folder)`;
  }
  const root = resolve(scope.filesDir);
  const realRoot = realPathOf(root);
  const lexical = resolve(raw);
  if (!realRoot || !(within(root, lexical) || within(realRoot, lexical))) {
    return `${shown} is outside the session's folder; send the file's content instead (Playwright: setInputFiles with name, mimeType and buffer)`;
  }
  const real = realPathOf(lexical);
  if (!real) return `${shown} goes through a link that does not resolve`;
  if (!within(realRoot, real)) return `${shown} leads outside the session's folder through a link`;
  try {
    return folderRefusal(real, realRoot, shown);
  } catch {
    return `${shown} is a folder that cannot be read through`;
  }
}

function filesRefusal(files: string[], scope: CdpScope): string | undefined {
  for (const file of files) {
    const why = fileRefusal(file, scope);
    if (why) return why;
  }
  return undefined;
}

const pathList = z.array(z.string()).max(MAX_FILES);

const fileInputSchema = z.object({ files: pathList });
const dragSchema = z.object({ data: z.object({ files: pathList.optional() }).optional() });

const fileInputRule: Rule = (params, scope) => {
  const parsed = parse(fileInputSchema, params);
  return typeof parsed === "string" ? parsed : filesRefusal(parsed.data.files, scope);
};

/** A drop carries files by host path, as a file input does. */
const dragRule: Rule = (params, scope) => {
  const parsed = parse(dragSchema, params);
  if (typeof parsed === "string") return parsed;
  return filesRefusal(parsed.data.data?.files ?? [], scope);
};

const RULES = new Map<string, Rule>([
  ...ALWAYS_REFUSED.map(([method, why]): [string, Rule] => [method, () => why]),
  ["Browser.setDownloadBehavior", downloadRule(["deny", "allow", "allowAndName", "default"])],
  ["Page.setDownloadBehavior", downloadRule(["deny", "allow", "default"])],
  ["Target.createBrowserContext", createContextRule],
  ["Page.navigate", urlRule(false)],
  ["Target.createTarget", urlRule(true)],
  ["Network.loadNetworkResource", urlRule(false)],
  ["Fetch.continueRequest", continueRequestRule],
  ["Fetch.fulfillRequest", responseHeadersRule],
  ["Fetch.continueResponse", responseHeadersRule],
  ["Network.continueInterceptedRequest", interceptedRequestRule],
  ["DOM.setFileInputFiles", fileInputRule],
  ["Input.dispatchDragEvent", dragRule],
  ["Tracing.start", tracingRule],
]);
