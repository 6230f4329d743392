/**
 * Every secret value the client could come across, so the redactor can scrub it wherever it
 * shows up: option values and the environment variables that carry keys.
 */
import { SECRET_ENV_VARS } from "./envVars.js";
import type { ResolvedOptions } from "./options.js";

/**
 * The one rule for a name that holds a credential: a configuration field, a header, a query
 * parameter, a log field. Narrow on purpose, because it also runs over data (extracted
 * results in history): `promptTokens`, `keys`, `author` or `sessionId` are not credentials.
 */
const SECRET_NAME =
  /api[-_]?key|private[-_]?key|access[-_]?key|(?:^|[-_])key$|secret|passw(?:or)?d|passphrase|token$|(?:^|[-_])auth$|authorization|cookie|credential|signature|^sig$|jwt/i;

export function looksLikeSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function secretsOf(
  options: ResolvedOptions,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const launch = options.localBrowserLaunchOptions;
  const found: Array<string | undefined> = [
    options.apiKey,
    launch.proxy?.password,
    ...urlSecrets(launch.cdpUrl),
    // A header for one's own browser's host is a credential, whatever its name.
    ...Object.values(launch.cdpHeaders ?? {}),
    ...urlSecrets(launch.proxy?.server),
    ...SECRET_ENV_VARS.map((name) => env[name]),
  ];
  collect(options.model, found);
  return found.filter((s): s is string => typeof s === "string");
}

/**
 * The secrets a per-call model configuration carries (its key, a key in its baseURL, credential
 * headers): known to the redactor from the call's start, whether or not it reaches a model.
 */
export function modelSecrets(model: unknown): string[] {
  const found: Array<string | undefined> = [];
  collect(model, found);
  return found.filter((s): s is string => typeof s === "string");
}

/** Walks a configuration object for key-like fields (apiKey, private_key, token, headers, URLs). */
function collect(value: unknown, into: Array<string | undefined>, key = ""): void {
  if (typeof value === "string") {
    if (looksLikeSecretName(key)) into.push(value);
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

/** Longer values are opaque enough to be credentials whatever the header is called. */
const OPAQUE_LENGTH = 24;

/**
 * The header values to keep out of everything written: those of credential-like headers, and
 * long opaque ones. Short plain values ("Shop", "true") would garble every log line if scrubbed.
 */
export function secretHeaderValues(headers: Record<string, string> | undefined): string[] {
  return Object.entries(headers ?? {})
    .filter(([name, value]) => looksLikeSecretName(name) || value.length >= OPAQUE_LENGTH)
    .map(([, value]) => value);
}

/** The credentials a URL may carry: its userinfo, and key-like query parameters. */
export function urlSecrets(value: string | undefined): string[] {
  if (!value) return [];
  try {
    const url = new URL(value);
    const found = [decodeURIComponent(url.username), decodeURIComponent(url.password)];
    for (const [name, v] of url.searchParams) if (looksLikeSecretName(name)) found.push(v);
    return found.filter((s) => s.length > 0);
  } catch {
    return [];
  }
}
