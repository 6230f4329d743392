/**
 * extract's schema at the wire boundary: past its documented limits (64 levels of the JSON
 * Schema document, 10,000 values) it is refused with the field and the limit named, before any
 * work; within them it converts as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  JSON_SCHEMA_LIMITS,
  jsonSchemaOf,
  oversizedSchema,
  zodSchemaOf,
} from "../../lib/api/jsonSchema.js";
import { ExtractRequestSchema } from "../../lib/api/operations.js";
import { ServiceValidationError } from "../../lib/errors.js";
import { parseInput } from "../../lib/options.js";

/** Objects nested `levels` deep as JSON Schema: 2 levels of the document each, plus the leaf. */
const nestedSchema = (levels: number) =>
  JSON.parse(
    `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`,
  ) as Record<string, unknown>;
/** The data such a schema describes. */
const nestedData = (levels: number) =>
  JSON.parse(`${'{"a":'.repeat(levels)}"x"${"}".repeat(levels)}`) as unknown;

describe("extract's JSON Schema limits", () => {
  it("are 64 levels and 10,000 values", () => {
    expect(JSON_SCHEMA_LIMITS).toEqual({ depth: 64, nodes: 10_000 });
  });

  it("take a schema of 31 nested objects (63 levels) and convert it", () => {
    const schema = nestedSchema(31);
    expect(oversizedSchema(schema)).toBeUndefined();
    expect(zodSchemaOf(schema).safeParse(nestedData(31)).success).toBe(true);
  });

  it("refuse one level more, and 3,000 more, naming the field and the limit", () => {
    for (const levels of [32, 3_000]) {
      const error = (() => {
        try {
          zodSchemaOf(nestedSchema(levels));
        } catch (e) {
          return e;
        }
      })() as ServiceValidationError;
      expect(error).toBeInstanceOf(ServiceValidationError);
      expect(error.message).toMatch(/at most 64 levels deep .* → at extract\.schema$/s);
      expect(error.message).toContain("z.unknown()");
    }
  });

  it("refuse a schema of more than 10,000 values, however flat", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 5_000 }, (_, i) => [`field${i}`, { type: "string" }]),
    );
    const wide = { type: "object", properties };
    expect(oversizedSchema(wide)).toMatch(/at most 10000 values all told/);
    expect(() => zodSchemaOf(wide)).toThrow(ServiceValidationError);
  });

  it("are checked when a wire request is parsed: before the server cache or a page is touched", () => {
    const parse = (schema: unknown) => () =>
      parseInput(ExtractRequestSchema, { instruction: "x", schema }, "extract body");
    expect(parse(nestedSchema(31))).not.toThrow();
    expect(parse(nestedSchema(32))).toThrow(/at most 64 levels deep .* → at extract body\.schema/s);
  });

  it("hold for a library caller's zod schema too, as the service would refuse it", () => {
    let deep: z.ZodType = z.string();
    for (let i = 0; i < 40; i++) deep = z.object({ a: deep });
    expect(() => jsonSchemaOf(deep)).toThrow(/at most 64 levels deep/);
    const shallow = z.object({ title: z.string(), tags: z.array(z.string()).optional() });
    expect(zodSchemaOf(jsonSchemaOf(shallow))).toBe(shallow);
  });
});
