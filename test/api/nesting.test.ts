/**
 * A caller's JSON measured without recursion: as deep as JSON.parse goes (far past the stack),
 * as wide as a body may be, stopping at the first limit passed.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  deepBodyRefusal,
  MAX_BODY_DEPTH,
  MAX_JSON_DEPTH,
  nestedAtMost,
  nestingExcess,
} from "../../lib/api/nesting.js";
import { ServiceValidationError } from "../../lib/errors.js";

/** `levels` objects nested in each other, parsed from text (building it would recurse). */
const objects = (levels: number) =>
  JSON.parse(`${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`) as unknown;
const arrays = (levels: number) => JSON.parse(`${"[".repeat(levels)}1${"]".repeat(levels)}`);

describe("nestingExcess", () => {
  it("counts levels of objects and arrays, the value itself the first", () => {
    expect(nestingExcess("text", { depth: 0 })).toBeUndefined();
    expect(nestingExcess({}, { depth: 1 })).toBeUndefined();
    expect(nestingExcess({ a: [1] }, { depth: 1 })).toBe("depth");
    expect(nestingExcess({ a: [1] }, { depth: 2 })).toBeUndefined();
    expect(nestingExcess(objects(64), { depth: 64 })).toBeUndefined();
    expect(nestingExcess(objects(65), { depth: 64 })).toBe("depth");
    expect(nestingExcess([{}, [[]]], { depth: 3 })).toBeUndefined();
    expect(nestingExcess([{}, [[[]]]], { depth: 3 })).toBe("depth");
  });

  it("takes values nested a million levels deep, where a recursive walk overflows", () => {
    const deep = arrays(1_000_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(nestingExcess(deep, { depth: MAX_BODY_DEPTH })).toBe("depth");
    expect(nestingExcess(objects(500_000), { depth: 600_000 })).toBeUndefined();
  });

  it("counts every value against the node limit, containers and leaves alike", () => {
    const wide = { list: Array.from({ length: 98 }, (_, i) => i) }; // 1 + 1 + 98 values
    expect(nestingExcess(wide, { depth: 5, nodes: 100 })).toBeUndefined();
    expect(nestingExcess(wide, { depth: 5, nodes: 99 })).toBe("nodes");
    expect(nestingExcess({ a: { b: {} } }, { depth: 2, nodes: 100 })).toBe("depth");
  });
});

describe("the checks built on it", () => {
  it("refuses a body past MAX_BODY_DEPTH with a 400's error naming the limit", () => {
    expect(deepBodyRefusal(objects(MAX_BODY_DEPTH))).toBeUndefined();
    const refused = deepBodyRefusal(objects(MAX_BODY_DEPTH + 1));
    expect(refused).toBeInstanceOf(ServiceValidationError);
    expect(refused?.message).toContain(`at most ${MAX_BODY_DEPTH} levels deep`);
    expect(deepBodyRefusal(arrays(200_000))).toBeInstanceOf(ServiceValidationError);
  });

  it("gives a free-form JSON field a zod check naming the limit", () => {
    const schema = z.record(z.string(), z.unknown()).superRefine(nestedAtMost());
    expect(schema.safeParse({ userMetadata: objects(MAX_JSON_DEPTH - 1) }).success).toBe(true);
    const deep = schema.safeParse({ userMetadata: objects(100_000) });
    expect(deep.success).toBe(false);
    expect(deep.error?.issues[0]?.message).toContain(`at most ${MAX_JSON_DEPTH} levels deep`);
  });
});
