/**
 * Every secret value the client could come across, so the redactor can scrub it wherever it
 * shows up: option values and the environment variables that carry keys.
 */
import { SECRET_ENV_VARS } from "./envVars.js";
import type { ResolvedOptions } from "./options.js";

export function secretsOf(
  options: ResolvedOptions,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const launch = options.localBrowserLaunchOptions;
  const found: Array<string | undefined> = [
    options.apiKey,
    launch.proxy?.password,
    ...urlSecrets(launch.cdpUrl),
    ...urlSecrets(launch.proxy?.server),
    ...SECRET_ENV_VARS.map((name) => env[name]),
  ];
  collect(options.model, found);
  return found.filter((s): s is string => typeof s === "string");
}

/** Walks a configuration object for key-like fields (apiKey, private_key, token, headers, URLs). */
function collect(value: unknown, into: Array<string | undefined>, key = ""): void {
  if (typeof value === "string") {
    if (/api[-_]?key|private[-_]?key|token|secret|password|authorization/i.test(key))
      into.push(value);
    if (/url$/i.test(key)) into.push(...urlSecrets(value));
    return;
  }
  if (!value || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) {
    if (k === "headers" && v && typeof v === "object") {
      into.push(...secretHeaderValues(v as Record<string, string>));
    } else collect(v, into, k);
  }
}

/** Header names that carry credentials. */
const SECRET_HEADER = /auth|key|token|secret|cookie|session|signature|password|credential/i;
/** Longer values are opaque enough to be credentials whatever the header is called. */
const OPAQUE_LENGTH = 24;

/**
 * The header values to keep out of everything written: those of credential-like headers, and
 * long opaque ones. Short plain values ("Shop", "true") would garble every log line if scrubbed.
 */
export function secretHeaderValues(headers: Record<string, string> | undefined): string[] {
  return Object.entries(headers ?? {})
    .filter(([name, value]) => SECRET_HEADER.test(name) || value.length >= OPAQUE_LENGTH)
    .map(([, value]) => value);
}

/** Query parameters whose values are credentials (others, like `?headless=true`, are not). */
const SECRET_PARAMETER = /key|token|secret|pass|auth|sig|credential|session|jwt/i;

/** The credentials a URL may carry: its userinfo, and key-like query parameters. */
export function urlSecrets(value: string | undefined): string[] {
  if (!value) return [];
  try {
    const url = new URL(value);
    const found = [decodeURIComponent(url.username), decodeURIComponent(url.password)];
    for (const [name, v] of url.searchParams) if (SECRET_PARAMETER.test(name)) found.push(v);
    return found.filter((s) => s.length > 0);
  } catch {
    return [];
  }
}
