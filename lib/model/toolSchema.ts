/**
 * A tool's input as the provider is told of it: the JSON Schema of its zod schema without the
 * `$schema` URL and `additionalProperties: false`, which every step of an agent would otherwise
 * pay for once per tool (about 15 tokens each, 12 tools). The input the model sends is still
 * checked by the zod schema itself.
 */
import { jsonSchema, type Schema } from "ai";
import { z } from "zod";

const made = new WeakMap<z.ZodType, Schema<unknown>>();

export function toolInputSchema(schema: z.ZodType): Schema<unknown> {
  const known = made.get(schema);
  if (known) return known;
  const json = strip(
    z.toJSONSchema(schema, { target: "draft-7", io: "input", unrepresentable: "any" }),
  );
  const compact = jsonSchema<unknown>(json as Parameters<typeof jsonSchema>[0], {
    validate: (value) => {
      const parsed = schema.safeParse(value);
      return parsed.success
        ? { success: true, value: parsed.data }
        : { success: false, error: parsed.error };
    },
  });
  made.set(schema, compact);
  return compact;
}

function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || (key === "additionalProperties" && value === false)) continue;
    out[key] = strip(value);
  }
  return out;
}
