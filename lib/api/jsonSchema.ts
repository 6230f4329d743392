/**
 * extract's schema on the wire: the caller's zod schema as JSON Schema, and a zod schema made
 * back from it on the other side. Both are kept per schema object, so a job that extracts with
 * the same schema every run converts it once.
 */
import { z } from "zod";
import { ServiceValidationError } from "../errors.js";
import { MAX_JSON_DEPTH, nestingExcess } from "./nesting.js";

/**
 * The most an extract schema may be: levels of objects and arrays in the JSON Schema document
 * (its root is level 1; an object property costs two, `properties` and the property), and values
 * in it all told. Past them it is refused before any work: converting it, keying the server
 * cache by it and sending it to the model all walk it level by level.
 */
export const JSON_SCHEMA_LIMITS = { depth: MAX_JSON_DEPTH, nodes: 10_000 } as const;

const toJson = new WeakMap<z.ZodType, Record<string, unknown>>();
const fromJson = new WeakMap<object, z.ZodType>();

/** The JSON Schema of what the caller will parse (its input side: transforms come after). */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let json = toJson.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
    refuseOversized(json);
    refuseRecursion(json);
    toJson.set(schema, json);
    fromJson.set(json, schema);
  }
  return json;
}

/** A zod schema for a JSON Schema that came over the wire (the caller's own, when it is ours). */
export function zodSchemaOf(json: Record<string, unknown>): z.ZodType {
  let schema = fromJson.get(json);
  if (!schema) {
    refuseOversized(json);
    refuseRecursion(json);
    try {
      schema = z.fromJSONSchema(
        withoutStringKeyRule(json) as Parameters<typeof z.fromJSONSchema>[0],
      );
    } catch (error) {
      throw new ServiceValidationError("extract.schema", [
        {
          path: [],
          message: `expected a JSON Schema zod can read: ${error instanceof Error ? error.message : String(error)}`,
        },
      ]);
    }
    fromJson.set(json, schema);
  }
  return schema;
}

/** Why a JSON Schema is past JSON_SCHEMA_LIMITS (a sentence for the caller), or undefined. */
export function oversizedSchema(json: unknown): string | undefined {
  const { depth, nodes } = JSON_SCHEMA_LIMITS;
  switch (nestingExcess(json, JSON_SCHEMA_LIMITS)) {
    case "depth":
      return `expected a JSON Schema nested at most ${depth} levels deep (objects and arrays of the schema document), but it nests deeper: flatten the data asked for, or type the deep part z.unknown() ({} in JSON Schema)`;
    case "nodes":
      return `expected a JSON Schema of at most ${nodes} values all told, but it has more: ask for fewer fields in one call, or shorten the enums`;
    default:
      return undefined;
  }
}

/** A zod check of the wire's JSON Schema field: refused at parse, before any work. */
export function schemaWithinLimits(json: unknown, ctx: z.RefinementCtx): void {
  const why = oversizedSchema(json);
  if (why) ctx.addIssue({ code: "custom", message: why });
}

function refuseOversized(json: Record<string, unknown>): void {
  const why = oversizedSchema(json);
  if (why) throw new ServiceValidationError("extract.schema", [{ path: [], message: why }]);
}

/**
 * A schema that refers to itself (zod's getter pattern, a `$ref` on the wire) describes data of
 * no fixed depth: the model's schema could not be made from it, and walking it never ends.
 */
function refuseRecursion(json: Record<string, unknown>): void {
  const cycle = recursiveRef(json);
  if (cycle === undefined) return;
  throw new ServiceValidationError("extract.schema", [
    {
      path: [],
      message: `expected a schema without recursion, but it refers to itself ($ref "${cycle}"): write out the levels to extract, or type the nested part z.unknown()`,
    },
  ]);
}

/**
 * A `$ref` that leads back to where it stands: to the root, or to a definition that reaches
 * itself again. (A definition merely used twice, a schema with an `id`, is no recursion.)
 */
function recursiveRef(json: Record<string, unknown>): string | undefined {
  const defs = (json.$defs ?? {}) as Record<string, unknown>;
  const refsIn = (value: unknown, into: string[] = []): string[] => {
    if (!value || typeof value !== "object") return into;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === "string") into.push(ref);
    for (const [key, v] of Object.entries(value)) if (key !== "$defs") refsIn(v, into);
    return into;
  };
  const target = (ref: string) =>
    ref === "#" ? json : ref.startsWith("#/$defs/") ? defs[ref.slice(8)] : undefined;
  const reaches = (ref: string, goal: string, seen: Set<string>): boolean => {
    if (seen.has(ref)) return false;
    seen.add(ref);
    return refsIn(target(ref)).some((next) => next === goal || reaches(next, goal, seen));
  };
  for (const ref of new Set(refsIn(json))) {
    if (ref === "#" || reaches(ref, ref, new Set())) return ref;
  }
  return undefined;
}

/**
 * `propertyNames: {type: "string"}` says nothing (JSON keys are strings), but zod reads a
 * record that has it as a transform, which hides the values' schema (their URL fields).
 */
function withoutStringKeyRule(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutStringKeyRule);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const trivial =
      key === "propertyNames" && JSON.stringify(v) === JSON.stringify({ type: "string" });
    if (!trivial) out[key] = withoutStringKeyRule(v);
  }
  return out;
}
