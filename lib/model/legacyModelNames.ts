/**
 * Model names of the reference's older form, without a provider (`"gpt-4.1-nano"`): its clients
 * and its own test suite still send them, and it maps them to their provider with a deprecation
 * line. Mapped here by family rather than by a fixed list, so a newer model of a known family
 * (`"gpt-5-mini"`) is read the same way; a name of no known family stays refused.
 */
import type { ProviderName } from "./config.js";

const FAMILIES: [RegExp, ProviderName][] = [
  [/^(gpt-|chatgpt-|o\d(-|$)|computer-use-)/, "openai"],
  [/^claude-/, "anthropic"],
  [/^gemini-/, "google"],
];

/** `provider/name` for a bare name of a known family; undefined for any other name. */
export function prefixedModelName(name: string): string | undefined {
  if (name.includes("/")) return undefined;
  const family = FAMILIES.find(([pattern]) => pattern.test(name));
  return family ? `${family[1]}/${name}` : undefined;
}

/** The line a mapped name leaves in the log, as the reference words its warning. */
export function legacyNameWarning(name: string, prefixed: string): string {
  return `Deprecation warning: model name "${name}" has no provider; read as "${prefixed}". Write it as "provider/model" (e.g. "${prefixed}").`;
}
