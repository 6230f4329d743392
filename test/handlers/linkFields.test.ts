/**
 * The schema the model answers, made from the caller's: once per schema (the model layer keeps
 * its JSON Schema by it), whole or for one part of a page.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromModelAnswer, modelSchemaFor } from "../../lib/handlers/linkFields.js";

describe("the schema the model answers", () => {
  const caller = z.object({ title: z.string(), link: z.url(), note: z.string().optional() });

  it("is the same schema for the same caller's schema, and another for a part of a page", () => {
    const whole = modelSchemaFor(caller);
    expect(modelSchemaFor(caller)).toBe(whole);
    const part = modelSchemaFor(caller, true);
    expect(modelSchemaFor(caller, true)).toBe(part);
    expect(part).not.toBe(whole);
    // A part need not show every field; the whole page answers the required ones.
    expect(part.safeParse({ title: null, link: null, note: null }).success).toBe(true);
    expect(whole.safeParse({ title: null, link: "3", note: null }).success).toBe(false);
  });

  it("asks for a link's id and maps it back to the URL, whichever call made the schema first", () => {
    modelSchemaFor(caller, true);
    const answered = modelSchemaFor(caller);
    const value = { title: "Tea", link: "[7]", note: null };
    expect(answered.safeParse(value).success).toBe(true);
    expect(fromModelAnswer(value, caller, { "7": "https://shop.test/tea" })).toEqual({
      title: "Tea",
      link: "https://shop.test/tea",
    });
    // Another caller's schema of the same shape is its own.
    const other = z.object({ title: z.string(), link: z.url(), note: z.string().optional() });
    expect(modelSchemaFor(other)).not.toBe(answered);
  });
});
