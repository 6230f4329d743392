/**
 * Which extract form a call is: `()`, `(options)`, `(instruction[, options])`,
 * `(instruction, schema[, options])` or `({ instruction, schema, ...options })`.
 */
import { z } from "zod";
import { ServiceValidationError } from "../errors.js";
import type { ExtractOptions } from "../options.js";

export interface ExtractCall {
  instruction?: string;
  schema?: z.ZodType;
  options?: ExtractOptions;
}

export function readExtractCall(first: unknown, second: unknown, third: unknown): ExtractCall {
  if (typeof first === "string") {
    if (!first.trim()) {
      throw new ServiceValidationError("extract.instruction", [
        { path: [], message: "expected an instruction, not an empty string" },
      ]);
    }
    if (second instanceof z.ZodType) {
      return { instruction: first, schema: second, options: third as ExtractOptions | undefined };
    }
    if (third !== undefined) {
      throw new ServiceValidationError("extract.schema", [
        { path: [], message: "expected a zod schema as the second argument" },
      ]);
    }
    return { instruction: first, options: second as ExtractOptions | undefined };
  }
  if (first && typeof first === "object" && ("instruction" in first || "schema" in first)) {
    const { instruction, schema, ...options } = first as Record<string, unknown>;
    if (typeof instruction !== "string" || !instruction.trim()) {
      throw new ServiceValidationError("extract.instruction", [
        { path: [], message: "expected an instruction string with the schema" },
      ]);
    }
    if (schema !== undefined && !(schema instanceof z.ZodType)) {
      throw new ServiceValidationError("extract.schema", [
        { path: [], message: "expected a zod schema" },
      ]);
    }
    return {
      instruction,
      schema: schema as z.ZodType | undefined,
      options: options as ExtractOptions,
    };
  }
  return { options: first as ExtractOptions | undefined };
}
