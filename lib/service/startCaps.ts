/**
 * The settings a `/start` may ask for, held to the operator's caps (docs/guide/service.md,
 * "Limits"). A value past a cap is a 400 naming the field and the variable: the caller chose
 * it (the reference's clients send these only when their user sets them) and can change it.
 * A setting not asked for takes the library's default, brought within the cap.
 */
import { ServiceValidationError } from "../errors.js";
import { V3OptionsSchema } from "../options.js";
import type { ServiceLimits } from "./config.js";
import type { SessionInit } from "./session.js";

type ClientSettings = NonNullable<SessionInit["client"]>;
type Viewport = { width: number; height: number };

export interface AskedAtStart {
  /** `wayfarer` of the body. */
  client: ClientSettings | undefined;
  /** `browserbaseSessionCreateParams.browserSettings.viewport`. */
  viewport: Viewport | undefined;
  /** `browser.launchOptions.viewport`: wins over the platform's when both are given. */
  launchViewport?: Viewport | undefined;
  /** `browserbaseSessionCreateParams.timeout`, seconds. */
  timeoutSeconds: number | undefined;
}

export interface Capped {
  client: ClientSettings;
  viewport: Viewport | undefined;
  /** The platform `timeout`, seconds, cut to the service's longest. */
  timeoutSeconds: number | undefined;
  /** What was cut, for the session's log. */
  notes: string[];
}

const DEFAULTS = V3OptionsSchema.pick({ maxChunksPerCall: true, outlineTokenBudget: true }).parse(
  {},
);
/** The window a browser launched without a viewport opens (lib/browser/launchArgs.ts). */
const DEFAULT_WINDOW: Viewport = { width: 1280, height: 720 };

const PARAMS = "browserbaseSessionCreateParams";

export function capStart(asked: AskedAtStart, limits: ServiceLimits): Capped {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const over = (path: (string | number)[], message: string) => issues.push({ path, message });
  const client = { ...asked.client };
  if (client.maxChunksPerCall !== undefined && client.maxChunksPerCall > limits.maxChunksPerCall) {
    over(
      ["wayfarer", "maxChunksPerCall"],
      `at most ${limits.maxChunksPerCall} on this service (WAYFARER_MAX_CHUNKS_PER_CALL); got ${client.maxChunksPerCall}`,
    );
  }
  if (
    client.outlineTokenBudget !== undefined &&
    client.outlineTokenBudget < limits.minOutlineTokenBudget
  ) {
    over(
      ["wayfarer", "outlineTokenBudget"],
      `at least ${limits.minOutlineTokenBudget} on this service (WAYFARER_MIN_OUTLINE_TOKEN_BUDGET): a smaller one multiplies model calls; got ${client.outlineTokenBudget}`,
    );
  }
  const tokenCap = limits.sessionTokenCap;
  if (client.tokenCap !== undefined && tokenCap !== undefined && client.tokenCap > tokenCap) {
    over(
      ["wayfarer", "tokenCap"],
      `at most ${tokenCap} on this service (WAYFARER_SESSION_TOKEN_CAP); got ${client.tokenCap}`,
    );
  }
  const max = limits.maxViewport;
  const sources: [(string | number)[], Viewport | undefined][] = [
    [[PARAMS, "browserSettings", "viewport"], asked.viewport],
    [["browser", "launchOptions", "viewport"], asked.launchViewport],
  ];
  for (const [path, size] of sources) {
    for (const side of ["width", "height"] as const) {
      const given = size?.[side];
      if (given !== undefined && given > max[side]) {
        over(
          [...path, side],
          `at most ${max[side]} on this service (WAYFARER_MAX_VIEWPORT ${max.width}x${max.height}); got ${given}`,
        );
      }
    }
  }
  // Cut, not refused: the platform allows 6 hours, and v3 clients send what their users set.
  const longest = Math.floor(limits.keepAliveMaxMs / 1000);
  const notes: string[] = [];
  // The launch options name the browser itself; the platform's settings are a hosted browser's.
  const platform = asked.viewport;
  const launch = asked.launchViewport;
  if (
    platform &&
    launch &&
    (platform.width !== launch.width || platform.height !== launch.height)
  ) {
    notes.push(
      `browserbaseSessionCreateParams.browserSettings.viewport ${platform.width}x${platform.height} set aside: browser.launchOptions.viewport ${launch.width}x${launch.height} wins`,
    );
  }
  let timeoutSeconds = asked.timeoutSeconds;
  if (timeoutSeconds !== undefined && timeoutSeconds > longest) {
    notes.push(
      `browserbaseSessionCreateParams.timeout ${timeoutSeconds} s cut to ${longest} s, the longest on this service (WAYFARER_KEEPALIVE_MAX_MS)`,
    );
    timeoutSeconds = longest;
  }
  if (issues.length) throw new ServiceValidationError("start body", issues);
  client.maxChunksPerCall ??= Math.min(DEFAULTS.maxChunksPerCall, limits.maxChunksPerCall);
  client.outlineTokenBudget ??= Math.max(DEFAULTS.outlineTokenBudget, limits.minOutlineTokenBudget);
  client.tokenCap ??= tokenCap;
  const fits = DEFAULT_WINDOW.width <= max.width && DEFAULT_WINDOW.height <= max.height;
  const viewport =
    asked.launchViewport ??
    asked.viewport ??
    (fits
      ? undefined
      : {
          width: Math.min(DEFAULT_WINDOW.width, max.width),
          height: Math.min(DEFAULT_WINDOW.height, max.height),
        });
  return { client, viewport, timeoutSeconds, notes };
}
