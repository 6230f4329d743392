/**
 * The service's settings, from the environment (docs/reference/environment.md, "The HTTP
 * service"), with embedded defaults: `npm run service` needs nothing else.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { ServiceValidationError } from "../errors.js";
import { type AddressRule, STRICT_RULE } from "../net/addressRule.js";
import { parseInput } from "../options.js";
import { type BrowserUsersSetting, BrowserUsersSettingSchema } from "./browserUsers.js";
import { memoryIsShort } from "./memoryAvailable.js";
import { type BrowserPolicy, LaunchOptInSchema } from "./startBrowser.js";
import { machineWarmBrowsers } from "./warmBrowsers.js";

const Count = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

const ServiceEnvSchema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  WAYFARER_API_KEYS: z.string().optional(),
  WAYFARER_DATA_DIR: z.string().min(1).optional(),
  // The Python SDK's local mode starts its server with these (localModeOf).
  BB_ENV: z.string().optional(),
  BROWSERBASE_API_KEY: z.string().optional(),
  HEADLESS: z.string().optional(),
  XDG_CACHE_HOME: z.string().optional(),
  WAYFARER_ALLOW_HOSTS: z.string().optional(),
  WAYFARER_MAX_SESSIONS: Count(8, 1_000),
  WAYFARER_WARM_BROWSERS: z.coerce.number().int().min(0).max(64).optional(),
  WAYFARER_SESSION_IDLE_MS: Count(300_000, 86_400_000),
  WAYFARER_PUBLIC_URL: z.url().optional(),
  WAYFARER_TRUST_PROXY: z.string().optional(),
  WAYFARER_RATE_LIMIT: Count(1_200, 1_000_000),
  WAYFARER_SERVER_CACHE: z.enum(["on", "off"]).default("on"),
  WAYFARER_CACHE_MAX_ENTRY_BYTES: Count(256 * 2 ** 10, 64 * 2 ** 20),
  WAYFARER_CACHE_MAX_BYTES: Count(256 * 2 ** 20, 2 ** 40),
  WAYFARER_CACHE_MAX_AGE_MS: Count(7 * 86_400_000, 365 * 86_400_000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/[^\s]+$/, "expected redis://[:password@]host:port[/db] or rediss://…")
    .optional(),
  WAYFARER_INTERNAL_URL: z.url({ protocol: /^https?$/ }).optional(),
  WAYFARER_INSTANCE_TTL_MS: z.coerce.number().int().min(1_000).max(300_000).default(10_000),
  WAYFARER_WATCH_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(2_000),
  WAYFARER_STREAM_KEEPALIVE_MS: z.coerce.number().int().min(50).max(60_000).default(5_000),
  WAYFARER_BROWSER_USERS: BrowserUsersSettingSchema,
  WAYFARER_ALLOW_LAUNCH_OPTIONS: LaunchOptInSchema,
  WAYFARER_ALLOW_CALLER_CDP: z
    .enum(["0", "1", "false", "true"], { error: "expected 1 or 0" })
    .default("0"),
  WAYFARER_ALLOW_UNSANDBOXED_BROWSERS: z
    .enum(["0", "1", "false", "true"], { error: "expected 1 or 0" })
    .default("0"),
  WAYFARER_METRICS_TOKEN: z
    .string()
    .regex(/^(\S{16,})?$/, "expected at least 16 characters without spaces")
    .optional(),
});

export interface ServiceConfig {
  host: string;
  port: number;
  /** `project:key` pairs, as given; none means a key is made for project "default". */
  apiKeys: string | undefined;
  /** The Python SDK's local mode (`BB_ENV=local` without `WAYFARER_API_KEYS`); undefined: not it. */
  localMode: LocalMode | undefined;
  dataDir: string;
  /** Lines for the operator at start-up: settings asked for that the service does not follow. */
  notes: string[];
  /** What every session's browser may reach (and every URL a caller makes the service fetch). */
  rule: AddressRule;
  maxSessions: number;
  /** Blank browsers kept launched for the next /start (WAYFARER_WARM_BROWSERS); 0: none. */
  warmBrowsers: number;
  /** Whether memory is short now: the warm pool stands down (memoryIsShort, or a test's). */
  memoryShort: () => boolean;
  idleMs: number;
  /** How long a session without keepAlive outlives its last CDP client (5 s). */
  releaseGraceMs: number;
  /** act, extract and observe answers kept in the data folder's `cache/`. */
  serverCache: boolean;
  /** The server cache's caps: an entry's bytes, the total's, an entry's age (ms). */
  cacheLimits: { maxEntryBytes: number; maxBytes: number; maxAgeMs: number };
  /** Requests a minute per project. */
  ratePerMinute: number;
  /** Whose X-Forwarded-* headers count: none, every peer (`true`), or these addresses. */
  trustProxy: boolean | string;
  /** The base URL clients reach the service by, for the links it hands out. */
  publicUrl: string | undefined;
  /** Largest request body, bytes. */
  bodyLimit: number;
  /** Shared mode (several instances, one Redis); undefined: embedded, state in this process. */
  shared: SharedConfig | undefined;
  /** What one project, and one session, may take (docs/guide/service.md, "Limits"). */
  limits: ServiceLimits;
  /** How often the watchdog measures every session's browser memory and folder (ms). */
  watchIntervalMs: number;
  /** How often a streamed operation says it is still at work, so no proxy drops it (ms). */
  streamKeepAliveMs: number;
  /** Whom each session's browser runs as: a uid of its own from a range (root), or the service's user. */
  browserUsers: BrowserUsersSetting;
  /**
   * WAYFARER_ALLOW_UNSANDBOXED_BROWSERS: the operator's consent to run browsers without
   * Chromium's sandbox where this host cannot give it; without it such a service does not start.
   */
  allowUnsandboxed?: boolean;
  /** What callers may choose of their browser at /start (`browser`): the operator's opt-ins. */
  browserPolicy: BrowserPolicy;
  /** The Bearer token /metrics asks for; undefined: /metrics is open. */
  metricsToken: string | undefined;
  /**
   * The service's own log, for what its operator should hear of as it happens (a session the
   * watchdog ended): standard error, unless given (a test's).
   */
  warn: (line: string) => void;
}

export interface SharedConfig {
  redisUrl: string;
  /** How the other instances reach this one; undefined: the address it binds, once bound. */
  internalUrl: string | undefined;
  /** An instance that has not renewed its entry for this long is gone. */
  instanceTtlMs: number;
  /** The server cache's caps in Redis (the same as the folder's). */
  cacheLimits: ServiceConfig["cacheLimits"];
}

export function serviceConfig(
  env: Record<string, string | undefined> = process.env,
): ServiceConfig {
  const e = parseInput(ServiceEnvSchema, env, "the service's environment");
  if (e.REDIS_URL && !e.WAYFARER_API_KEYS) {
    // A key made on one instance would open nothing on the others.
    throw new ServiceValidationError("the service's environment", [
      {
        path: ["WAYFARER_API_KEYS"],
        message: "required with REDIS_URL: the same project:key pairs on every instance",
      },
    ]);
  }
  const allowHosts = (e.WAYFARER_ALLOW_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  const cacheLimits = {
    maxEntryBytes: e.WAYFARER_CACHE_MAX_ENTRY_BYTES,
    maxBytes: e.WAYFARER_CACHE_MAX_BYTES,
    maxAgeMs: e.WAYFARER_CACHE_MAX_AGE_MS,
  };
  const localMode = localModeOf(e);
  return {
    host: e.HOST,
    port: e.PORT,
    apiKeys: e.WAYFARER_API_KEYS || undefined,
    localMode,
    dataDir: e.WAYFARER_DATA_DIR ?? (localMode ? localDataDir(e.XDG_CACHE_HOME) : ".wayfarer"),
    notes: /^(false|0|no)$/i.test(e.HEADLESS ?? "")
      ? [`HEADLESS=${e.HEADLESS} is ignored: the service runs every browser headless`]
      : [],
    rule: { ...STRICT_RULE, allowHosts, allowedBy: "WAYFARER_ALLOW_HOSTS" },
    maxSessions: e.WAYFARER_MAX_SESSIONS,
    warmBrowsers: e.WAYFARER_WARM_BROWSERS ?? machineWarmBrowsers(),
    memoryShort: () => memoryIsShort(),
    idleMs: e.WAYFARER_SESSION_IDLE_MS,
    // A client that reconnects, or ends the session itself right after closing (v3 clients do).
    releaseGraceMs: 5_000,
    ratePerMinute: e.WAYFARER_RATE_LIMIT,
    serverCache: e.WAYFARER_SERVER_CACHE === "on",
    cacheLimits,
    trustProxy:
      !e.WAYFARER_TRUST_PROXY || e.WAYFARER_TRUST_PROXY === "false"
        ? false
        : e.WAYFARER_TRUST_PROXY === "true" || e.WAYFARER_TRUST_PROXY,
    publicUrl: e.WAYFARER_PUBLIC_URL?.replace(/\/+$/, ""),
    bodyLimit: 4 * 1024 * 1024,
    shared: e.REDIS_URL
      ? {
          redisUrl: e.REDIS_URL,
          internalUrl: e.WAYFARER_INTERNAL_URL?.replace(/\/+$/, ""),
          instanceTtlMs: e.WAYFARER_INSTANCE_TTL_MS,
          cacheLimits,
        }
      : undefined,
    limits: serviceLimits(env, e.WAYFARER_API_KEYS, e.WAYFARER_MAX_SESSIONS),
    watchIntervalMs: e.WAYFARER_WATCH_INTERVAL_MS,
    streamKeepAliveMs: e.WAYFARER_STREAM_KEEPALIVE_MS,
    browserUsers: e.WAYFARER_BROWSER_USERS,
    allowUnsandboxed:
      e.WAYFARER_ALLOW_UNSANDBOXED_BROWSERS === "1" ||
      e.WAYFARER_ALLOW_UNSANDBOXED_BROWSERS === "true",
    browserPolicy: {
      launchOptions: e.WAYFARER_ALLOW_LAUNCH_OPTIONS,
      callerCdp: e.WAYFARER_ALLOW_CALLER_CDP === "1" || e.WAYFARER_ALLOW_CALLER_CDP === "true",
    },
    metricsToken: e.WAYFARER_METRICS_TOKEN || undefined,
    warn: (line) => void process.stderr.write(`${line}\n`),
  };
}

/**
 * The operator's limits. Each is named by its variable in the refusal it causes (429 for a
 * project's sessions and tokens, 400 for a setting past its cap), so whoever hits one knows
 * what the operator would have to change.
 */
export interface ServiceLimits {
  /** Sessions at once per project (across every instance in shared mode). */
  projectSessions: number;
  /** Model tokens a project may spend on the operator's keys per minute and per UTC day; undefined: no limit. */
  projectTokensPerMinute: number | undefined;
  projectTokensPerDay: number | undefined;
  /** The longest a keepAlive session lives, and the longest `timeout` a /start may ask for. */
  keepAliveMaxMs: number;
  /** The most `wayfarer.maxChunksPerCall` a session may ask for (and its value when it asks none). */
  maxChunksPerCall: number;
  /** The least `wayfarer.outlineTokenBudget` a session may ask for (a small one multiplies calls). */
  minOutlineTokenBudget: number;
  /** The most tokens one session may spend (`wayfarer.tokenCap` may only lower it); undefined: none. */
  sessionTokenCap: number | undefined;
  /** The largest `browserSettings.viewport`, CSS pixels. */
  maxViewport: { width: number; height: number };
  /** Pages (tabs, popups) open at once in a session's browser. */
  maxPages: number;
  /** Private memory of a session's browser (every process of it), MB; undefined: not watched. */
  browserMaxMemoryMb: number | undefined;
  /** Bytes on disk under a session's browser folder (profile, tmp, downloads), MB; undefined: not watched. */
  sessionMaxDiskMb: number | undefined;
}

/** 0 or unset: no limit. */
const Budget = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0);

/**
 * Megabytes the watchdog allows, 0 turning it off; a value below `least` would end sessions that
 * do nothing (a browser with one blank page holds about 70 MB of its own, its profile a few MB).
 */
const Megabytes = (fallback: number, least: number) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 30)
    .refine((mb) => mb === 0 || mb >= least, `expected 0 (no limit) or at least ${least}`)
    .default(fallback);

const LimitsEnvSchema = z.object({
  WAYFARER_PROJECT_MAX_SESSIONS: z.coerce.number().int().min(1).max(100_000).optional(),
  WAYFARER_PROJECT_TOKENS_PER_MINUTE: Budget,
  WAYFARER_PROJECT_TOKENS_PER_DAY: Budget,
  WAYFARER_KEEPALIVE_MAX_MS: z.coerce.number().int().min(1_000).max(604_800_000).default(3_600_000),
  WAYFARER_MAX_CHUNKS_PER_CALL: Count(8, 1_000),
  WAYFARER_MIN_OUTLINE_TOKEN_BUDGET: z.coerce.number().int().min(100).max(1_000_000).default(4_000),
  WAYFARER_SESSION_TOKEN_CAP: Budget,
  WAYFARER_MAX_VIEWPORT: z
    .string()
    .regex(/^[1-9]\d{2,4}x[1-9]\d{2,4}$/, "expected WIDTHxHEIGHT in CSS pixels, e.g. 1920x1080")
    .default("3840x2160"),
  WAYFARER_MAX_PAGES: Count(10, 1_000),
  WAYFARER_BROWSER_MAX_MEMORY_MB: Megabytes(2_048, 256),
  WAYFARER_SESSION_MAX_DISK_MB: Megabytes(1_024, 64),
});

function serviceLimits(
  env: Record<string, string | undefined>,
  apiKeys: string | undefined,
  maxSessions: number,
): ServiceLimits {
  const e = parseInput(LimitsEnvSchema, env, "the service's environment");
  const [width, height] = e.WAYFARER_MAX_VIEWPORT.split("x").map(Number) as [number, number];
  // One project (the made key's "default", or a single pair) may use every slot; with several,
  // none takes more than half an instance's, so one busy key leaves room for the others.
  const projects = new Set((apiKeys ?? "").split(",").map((p) => p.split(":")[0]?.trim())).size;
  return {
    projectSessions:
      e.WAYFARER_PROJECT_MAX_SESSIONS ?? (projects > 1 ? Math.ceil(maxSessions / 2) : maxSessions),
    projectTokensPerMinute: e.WAYFARER_PROJECT_TOKENS_PER_MINUTE || undefined,
    projectTokensPerDay: e.WAYFARER_PROJECT_TOKENS_PER_DAY || undefined,
    keepAliveMaxMs: e.WAYFARER_KEEPALIVE_MAX_MS,
    maxChunksPerCall: e.WAYFARER_MAX_CHUNKS_PER_CALL,
    minOutlineTokenBudget: e.WAYFARER_MIN_OUTLINE_TOKEN_BUDGET,
    sessionTokenCap: e.WAYFARER_SESSION_TOKEN_CAP || undefined,
    maxViewport: { width, height },
    maxPages: e.WAYFARER_MAX_PAGES,
    browserMaxMemoryMb: e.WAYFARER_BROWSER_MAX_MEMORY_MB || undefined,
    sessionMaxDiskMb: e.WAYFARER_SESSION_MAX_DISK_MB || undefined,
  };
}

/** The Python SDK's local mode: its server is started with `BB_ENV=local`. */
export interface LocalMode {
  /** `BROWSERBASE_API_KEY`, the key of project "local" (any value); undefined: none was given. */
  key: string | undefined;
}

// 0.0.0.0 and :: are not here: they listen on every interface.
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i;

/**
 * The Python SDK sends `BROWSERBASE_API_KEY` as `x-bb-api-key`, "any value in local mode": such a
 * key opens the service only on a loopback address, where no one else reaches it.
 * `WAYFARER_API_KEYS` always wins.
 */
function localModeOf(e: z.output<typeof ServiceEnvSchema>): LocalMode | undefined {
  if (e.BB_ENV !== "local" || e.WAYFARER_API_KEYS) return undefined;
  const key = e.BROWSERBASE_API_KEY || undefined;
  if (key && !LOOPBACK_HOST.test(e.HOST.replace(/^\[|\]$/g, ""))) {
    throw new ServiceValidationError("the service's environment", [
      {
        path: ["HOST"],
        message: `BB_ENV=local takes BROWSERBASE_API_KEY as the API key only on a loopback address (127.0.0.1, ::1, localhost), not on ${e.HOST}: set WAYFARER_API_KEYS=project:key to listen there`,
      },
    ]);
  }
  return { key };
}

/**
 * Local mode's data folder: a user's cache, not the Python project's folder it was started from
 * (the SDK's own binary is cached the same way, in ~/.cache/stagehand).
 */
function localDataDir(xdgCacheHome: string | undefined): string {
  return join(xdgCacheHome || join(homedir(), ".cache"), "wayfarer", "local");
}
