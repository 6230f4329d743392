/**
 * Checks on the Client's options that are not a schema's: the environment, said before
 * anything else, and a warning for every option given that does nothing.
 */
import { ServiceEnvironmentError } from "./errors.js";
import type { Logger } from "./log.js";
import {
  ENVIRONMENTS,
  KNOWN_LAUNCH_OPTIONS,
  KNOWN_OPTIONS,
  REMOTE_ONLY_OPTIONS,
  type V3Options,
} from "./options.js";

export function checkEnvironment(options: unknown): void {
  const env = (options as { env?: unknown } | null | undefined)?.env;
  if (!ENVIRONMENTS.includes(env as (typeof ENVIRONMENTS)[number])) {
    throw new ServiceEnvironmentError(
      `env is ${JSON.stringify(env)}; expected "LOCAL" or "REMOTE" ("BROWSERBASE" is accepted as an alias).`,
    );
  }
}

/** One warning for every option given that does nothing: remote-only under LOCAL, or unknown. */
export function warnAboutInactiveOptions(input: V3Options, logger: Logger): void {
  const local = input.env === "LOCAL";
  const given = local ? REMOTE_ONLY_OPTIONS.filter((k) => input[k] !== undefined) : [];
  const unknown = [
    ...Object.keys(input).filter((k) => !KNOWN_OPTIONS.includes(k)),
    ...Object.keys(input.localBrowserLaunchOptions ?? {})
      .filter((k) => !KNOWN_LAUNCH_OPTIONS.includes(k))
      .map((k) => `localBrowserLaunchOptions.${k}`),
  ];
  if (!given.length && !unknown.length) return;
  const parts = [];
  const verb = (list: string[], one: string, many: string) => (list.length === 1 ? one : many);
  if (given.length) {
    parts.push(`${given.join(", ")} ${verb(given, "acts", "act")} only under env "REMOTE"`);
  }
  if (unknown.length)
    parts.push(`${unknown.join(", ")} ${verb(unknown, "is", "are")} not supported`);
  logger.warn("client", `options ignored: ${parts.join("; ")}`, {
    ignored: [...given, ...unknown],
  });
}
