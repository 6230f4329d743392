/**
 * The schema the model answers, made from the caller's, and the way back:
 * - URL fields are answered as link ids: the outline shows ids, not URLs, so the model names
 *   the link and the real URL is put back from the snapshot's map (no copied-wrong URL);
 * - optional fields are nullable for the model: OpenAI's strict structured output wants every
 *   property present, so "absent" is answered as null and turned back into absent.
 */
import { z } from "zod";

const LINK_ID =
  'answer with the id of the link in the outline (the number in its "[id] link" line), not a URL';

function isUrl(schema: z.ZodType): boolean {
  if (schema instanceof z.ZodURL) return true;
  if (!(schema instanceof z.ZodString)) return false;
  const checks = (schema._zod.def.checks ?? []) as { _zod: { def: { format?: string } } }[];
  return checks.some((c) => c._zod.def.format === "url");
}

function describe<T extends z.ZodType>(target: T, source: z.ZodType, extra?: string): T {
  const text = [source.description, extra].filter(Boolean).join(" — ");
  return text ? target.describe(text) : target;
}

/**
 * The schema the model answers. With `partial` (the model reads one part of the page), every
 * field may be null: a part need not show everything, and the parts' answers are merged.
 */
/** Made once per schema (zod schemas never change): the model layer keeps its JSON Schema by it. */
const madeFor = {
  whole: new WeakMap<z.ZodType, z.ZodType>(),
  partial: new WeakMap<z.ZodType, z.ZodType>(),
};

export function modelSchemaFor(schema: z.ZodType, partial = false): z.ZodType {
  const made = partial ? madeFor.partial : madeFor.whole;
  let answered = made.get(schema);
  if (!answered) {
    answered = answeredAs(schema, partial);
    made.set(schema, answered);
  }
  return answered;
}

function answeredAs(schema: z.ZodType, partial: boolean): z.ZodType {
  const inner = (s: z.ZodType) => modelSchemaFor(s, partial);
  if (isUrl(schema)) return describe(z.string(), schema, LINK_ID);
  if (schema instanceof z.ZodObject) {
    const shape: Record<string, z.ZodType> = {};
    for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      const answered = inner(field);
      shape[key] = partial && !(answered instanceof z.ZodNullable) ? answered.nullable() : answered;
    }
    const rest = catchallOf(schema);
    const object = z.object(shape);
    return describe(rest ? object.catchall(inner(rest)) : object, schema);
  }
  if (schema instanceof z.ZodArray) {
    return describe(z.array(inner(schema.element as z.ZodType)), schema);
  }
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodNullable
  ) {
    const wrapped = innerOf(schema);
    // A URL field's description may sit on its wrapper (JSON Schema puts it beside the default).
    if (isUrl(wrapped) && !wrapped.description && schema.description) {
      return describe(z.string(), schema, LINK_ID).nullable();
    }
    return describe(inner(wrapped).nullable(), schema);
  }
  if (schema instanceof z.ZodUnion) {
    const options = (schema.options as z.ZodType[]).map(inner);
    return describe(z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]), schema);
  }
  if (schema instanceof z.ZodRecord) {
    return describe(z.record(z.string(), inner(schema.valueType as z.ZodType)), schema);
  }
  return schema;
}

/** The schema of an object's other keys (a record that came as JSON Schema is one of these). */
function catchallOf(schema: z.ZodObject): z.ZodType | undefined {
  const rest = schema._zod.def.catchall as z.ZodType | undefined;
  return rest && !(rest instanceof z.ZodNever) && !(rest instanceof z.ZodUnknown)
    ? rest
    : undefined;
}

function innerOf(schema: z.ZodOptional | z.ZodNullable | z.ZodDefault): z.ZodType {
  return schema._zod.def.innerType as z.ZodType;
}

/** The model's answer made the caller's: link ids → URLs, null for an optional → absent. */
export function fromModelAnswer(
  value: unknown,
  schema: z.ZodType,
  urls: Record<string, string>,
): unknown {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) {
    return value === null ? undefined : fromModelAnswer(value, innerOf(schema), urls);
  }
  if (value === undefined || value === null) return value;
  if (schema instanceof z.ZodNullable) return fromModelAnswer(value, innerOf(schema), urls);
  if (isUrl(schema)) {
    const id = String(value).replace(/^\[?(\d+)\]?$/, "$1");
    return Object.hasOwn(urls, id) ? urls[id] : value;
  }
  if (schema instanceof z.ZodObject && typeof value === "object" && !Array.isArray(value)) {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const shape = schema.shape as Record<string, z.ZodType>;
    const rest = catchallOf(schema);
    for (const key of Object.keys(out)) {
      const field = Object.hasOwn(shape, key) ? shape[key] : rest;
      if (!field) continue;
      const mapped = fromModelAnswer(out[key], field, urls);
      if (mapped === undefined) delete out[key];
      else out[key] = mapped;
    }
    return out;
  }
  if (schema instanceof z.ZodArray && Array.isArray(value)) {
    return value.map((v) => fromModelAnswer(v, schema.element as z.ZodType, urls));
  }
  if (schema instanceof z.ZodRecord && typeof value === "object" && !Array.isArray(value)) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        fromModelAnswer(v, schema.valueType as z.ZodType, urls),
      ]),
    );
  }
  if (schema instanceof z.ZodUnion) {
    // The first option the mapped value satisfies.
    for (const option of schema.options as z.ZodType[]) {
      const mapped = fromModelAnswer(value, option, urls);
      if (option.safeParse(mapped).success) return mapped;
    }
  }
  return value;
}
