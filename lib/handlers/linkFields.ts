/**
 * URL fields of an extraction schema are answered as link ids: the outline shows ids, not
 * URLs, so the model names the link and the real URL is put back from the snapshot's map.
 * That keeps URLs out of the prompt and makes a copied-wrong URL impossible.
 */
import { z } from "zod";

const LINK_ID = 'the id of the link in the outline (the number in its "[id] link" line), not a URL';

function isUrl(schema: z.ZodType): boolean {
  if (schema instanceof z.ZodURL) return true;
  if (!(schema instanceof z.ZodString)) return false;
  const checks = (schema._zod.def.checks ?? []) as { _zod: { def: { format?: string } } }[];
  return checks.some((c) => c._zod.def.format === "url");
}

/** The schema the model answers: each URL field becomes a link id (a string). */
export function withLinkIds(schema: z.ZodType): z.ZodType {
  if (isUrl(schema)) return z.string().describe(LINK_ID);
  if (schema instanceof z.ZodObject) {
    const shape: Record<string, z.ZodType> = {};
    for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      shape[key] = withLinkIds(field);
    }
    return z.object(shape);
  }
  if (schema instanceof z.ZodArray) return z.array(withLinkIds(schema.element as z.ZodType));
  if (schema instanceof z.ZodOptional) return withLinkIds(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodNullable) return withLinkIds(schema.unwrap() as z.ZodType).nullable();
  return schema;
}

/** Puts URLs back where the model answered link ids (an unknown id is left as answered). */
export function linkIdsToUrls(
  value: unknown,
  schema: z.ZodType,
  urls: Record<string, string>,
): unknown {
  if (value === undefined || value === null) return value;
  if (isUrl(schema)) {
    const id =
      typeof value === "number" ? String(value) : String(value).replace(/^\[?(\d+)\]?$/, "$1");
    return urls[id] ?? value;
  }
  if (schema instanceof z.ZodObject && typeof value === "object" && !Array.isArray(value)) {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      if (key in out) out[key] = linkIdsToUrls(out[key], field, urls);
    }
    return out;
  }
  if (schema instanceof z.ZodArray && Array.isArray(value)) {
    return value.map((v) => linkIdsToUrls(v, schema.element as z.ZodType, urls));
  }
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return linkIdsToUrls(value, schema.unwrap() as z.ZodType, urls);
  }
  return value;
}
