/**
 * How a service's model calls reach providers. The operator's keys (from its environment) go
 * only to endpoints the operator configured; a configuration that names an endpoint of the
 * caller's gets no key from the environment, and its requests go through a fetch that judges
 * the host by the service's address rule and connects to the address it judged. No request
 * follows a redirect. A failed call is told by its status in our words: an upstream's body
 * (which a caller's endpoint, or an internal one it was bounced to, chose) never comes back.
 */

import type { AddressRule, Lookup } from "../net/addressRule.js";
import { guardedFetch, noRedirectFetch } from "../net/guardedFetch.js";
import type { ModelConfiguration } from "./config.js";
import { ownEndpointField } from "./endpoint.js";

type Env = Record<string, string | undefined>;

export interface ModelAccess {
  /** Where keys may come from for this configuration when it carries none. */
  envFor(config: ModelConfiguration): Env;
  /** The HTTP client for this configuration's requests. */
  fetchFor(config: ModelConfiguration): typeof fetch;
  /** Failed calls say the status and our words, never the provider's (or a caller's server's). */
  quietErrors: boolean;
}

export function serviceModelAccess(
  rule: AddressRule,
  env: Env = process.env,
  lookup?: Lookup,
): ModelAccess {
  const callers = guardedFetch(rule, lookup);
  const own = (config: ModelConfiguration) => ownEndpointField(config) !== undefined;
  return {
    envFor: (config) => (own(config) ? {} : env),
    fetchFor: (config) => (own(config) ? callers : noRedirectFetch),
    quietErrors: true,
  };
}
