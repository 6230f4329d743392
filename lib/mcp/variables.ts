/**
 * `%name%` variables of an MCP server: set by whoever configures the server (its environment),
 * never by the conversation, and each bound to the origins it names. The calling model sees
 * the names only; every answer shows values as their `%name%` (results.ts).
 */
import { ServiceValidationError } from "../errors.js";
import { parseInput, type Variables, VariablesSchema } from "../options.js";
import { originOf, VariableOriginRefused, variablesIn } from "../variables.js";

const VAR = /^WAYFARER_MCP_VAR_(\w+)$/;
const ORIGINS = /^WAYFARER_MCP_ORIGINS_(\w+)$/;

/**
 * `WAYFARER_MCP_VAR_<NAME>` with its required `WAYFARER_MCP_ORIGINS_<NAME>` (comma-separated
 * origins): a value with nowhere to go would be typed wherever a page's words led the model, so
 * one without origins stops the server from starting, as do origins with no value.
 */
export function variablesFromEnv(env: Record<string, string | undefined>): Variables {
  const values = new Map<string, string>();
  const origins = new Map<string, string[]>();
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const named = VAR.exec(key)?.[1];
    if (named) values.set(named, value);
    const listed = ORIGINS.exec(key)?.[1];
    if (listed) {
      origins.set(
        listed,
        value
          .split(",")
          .map((o) => o.trim())
          .filter(Boolean),
      );
    }
  }
  const variables: Variables = {};
  for (const [name, value] of values) {
    const where = origins.get(name);
    if (!where?.length) {
      throw new ServiceValidationError(`WAYFARER_MCP_ORIGINS_${name}`, [
        {
          path: [],
          message: `%${name}% has a value (WAYFARER_MCP_VAR_${name}) but no origins to be typed on: set WAYFARER_MCP_ORIGINS_${name} to them, comma-separated (https://login.example.com)`,
        },
      ]);
    }
    variables[name] = { value, origins: where };
  }
  for (const name of origins.keys()) {
    if (!values.has(name)) {
      throw new ServiceValidationError(`WAYFARER_MCP_ORIGINS_${name}`, [
        {
          path: [],
          message: `names origins for %${name}%, but no WAYFARER_MCP_VAR_${name} is set`,
        },
      ]);
    }
  }
  return parseInput(VariablesSchema, variables, "the MCP server's variables") as Variables;
}

/**
 * The variables that may be typed on the page at `url`: those whose origins include its own.
 * A model tool's run starts on that page, and a run may type its variables on its start origin:
 * handing it the others would let any page the model was led to become one of theirs.
 */
export function variablesAt(variables: Variables, url: string): Variables {
  const here = originOf(url);
  if (here === "null") return {};
  return Object.fromEntries(
    Object.entries(variables).filter(([, v]) =>
      (typeof v === "object" ? (v.origins ?? []) : []).some((o) => originOf(o) === here),
    ),
  );
}

/**
 * Refuses, before any model call, an instruction naming a variable of the server that may not be
 * typed on the page at `url`: the model reads why, rather than "no such variable".
 */
export function checkNamedHere(text: string, variables: Variables, url: string): void {
  const allowed = variablesAt(variables, url);
  for (const [name, v] of Object.entries(variablesIn(text, variables))) {
    if (Object.hasOwn(allowed, name)) continue;
    const origins = typeof v === "object" ? (v.origins ?? []).map(originOf) : [];
    const here = originOf(url);
    throw new VariableOriginRefused(
      `%${name}% may be typed only on ${origins.join(", ")}; this page is ${here === "null" ? "no web page" : here}. Nothing was done.`,
    );
  }
}
