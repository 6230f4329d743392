/**
 * The model boundary of a service call: the model configurations a body names (a per-call
 * model, an agent's model and execution model) are checked before anything runs. A model object
 * without a key takes this request's `x-model-api-key`. One that names an endpoint of the
 * caller's must carry the caller's key (the header's counts as one), or it is refused with a 400 naming the field: the operator's keys go
 * only to endpoints the operator configured. Every URL it names must pass the service's address
 * rule (it is judged again, and pinned, when the request is made: lib/model/modelAccess.ts).
 */
import { ServiceValidationError } from "../errors.js";
import { callerModelRefusal, ownEndpointField } from "../model/endpoint.js";
import { type AddressRule, urlRefusal } from "../net/addressRule.js";

/** Where a wire body may carry a model configuration. */
const MODEL_PATHS = [
  ["options", "model"],
  ["agentConfig", "model"],
  ["agentConfig", "executionModel"],
] as const;

type Loose = Record<string, unknown>;

/**
 * The caller's model key of a request (`x-model-api-key`), trimmed; undefined when absent or
 * blank (a blank key would let a provider package fall back to the environment's).
 */
export function callerModelKey(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const value = headers["x-model-api-key"];
  const key = typeof value === "string" ? value.trim() : "";
  return key === "" ? undefined : key;
}

/** Throws the 400 for the first model the service may not call for this caller. */
export async function checkCallerModels(
  body: unknown,
  rule: AddressRule,
  /** The caller's model key sent with this request, if any. */
  callerKey: string | undefined,
): Promise<void> {
  for (const [outer, inner] of MODEL_PATHS) {
    const holder = (body as Loose | undefined)?.[outer] as Loose | undefined;
    const model = holder?.[inner];
    if (!model || typeof model !== "object") continue;
    const config = model as Loose;
    // The caller's key, sent in the header, is the key of a model the caller names without one,
    // as the reference reads it: to the caller's own endpoint, or to a provider's.
    const generic = config.providerOptions === undefined;
    if (callerKey && config.apiKey === undefined && !config.auth) {
      if (generic || ownEndpointField(config)) config.apiKey = callerKey;
    }
    for (const [path, url] of urlsOf(config)) {
      const why = await urlRefusal(url, rule, undefined, "refuse");
      if (why) {
        throw new ServiceValidationError("body", [
          { path: [outer, inner, ...path], message: `the service may not call this URL: ${why}` },
        ]);
      }
    }
    const refused = callerModelRefusal(config);
    if (refused) {
      throw new ServiceValidationError("body", [
        { path: [outer, inner, ...refused[0].split(".")], message: refused[1] },
      ]);
    }
  }
}

/** The endpoint URLs a configuration names, with their paths in it. */
function urlsOf(config: Loose): [string[], string][] {
  const options = config.providerOptions as Record<string, Loose> | undefined;
  const found: [string[], unknown][] = [
    [["baseURL"], config.baseURL],
    [["providerOptions", "azure", "baseURL"], options?.azure?.baseURL],
    [["providerOptions", "vertex", "baseURL"], options?.vertex?.baseURL],
  ];
  return found.filter((f): f is [string[], string] => typeof f[1] === "string");
}
