/**
 * What a failed model call becomes: the reference's error (ZodSchemaValidationError for JSON of
 * the wrong shape, LLMResponseError with the provider's own words and status otherwise),
 * without anything secret in it.
 */
import { APICallError, NoObjectGeneratedError } from "ai";
import type { z } from "zod";
import { LLMResponseError, ServiceError, ZodSchemaValidationError } from "../errors.js";
import type { Redactor } from "../log.js";
import type { Operation } from "./modelClient.js";

/** The reference's error for a failed call, without anything secret in it. */
export function toModelError(
  call: { operation: Operation; schema: z.ZodType | undefined },
  error: unknown,
  redactor: Redactor,
): Error {
  const { operation } = call;
  if (error instanceof ServiceError) return redactor.error(error);
  if (NoObjectGeneratedError.isInstance(error)) {
    // JSON of the wrong shape is a schema mismatch, with its issues; anything else is not an
    // answer at all.
    const received = parseJson(error.text);
    const checked =
      received === undefined || !call.schema ? undefined : call.schema.safeParse(received);
    if (checked && !checked.success) {
      return new ZodSchemaValidationError(
        redactor.value(received),
        checked.error.issues.map((i) => ({ path: i.path, message: i.message })),
      );
    }
  }
  if (APICallError.isInstance(error)) {
    const detail = redactor.text(providerMessage(error));
    return new LLMResponseError(operation, detail, { status: error.statusCode });
  }
  if (NoObjectGeneratedError.isInstance(error)) {
    return new LLMResponseError(
      operation,
      redactor.text(`the answer did not match the expected shape: ${error.message}`),
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LLMResponseError(operation, redactor.text(message));
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The provider's own words about the failure, from its error body when there is one. */
function providerMessage(error: APICallError): string {
  const body = error.responseBody;
  if (body) {
    try {
      const parsed = JSON.parse(body) as {
        error?: { message?: string } | string;
        message?: string;
      };
      const message =
        typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
      if (message) return message;
    } catch {
      // Not JSON: the text itself says it.
      return body.slice(0, 500);
    }
  }
  return error.message;
}
