/**
 * What a failed model call becomes: the reference's error (ZodSchemaValidationError for JSON of
 * the wrong shape, LLMResponseError with the provider's own words and status otherwise),
 * without anything secret in it.
 */
import { APICallError, NoObjectGeneratedError } from "ai";
import type { z } from "zod";
import { LLMResponseError, ServiceError, ZodSchemaValidationError } from "../errors.js";
import type { Redactor } from "../log.js";
import { RefusedAddressError } from "../net/guardedFetch.js";
import type { Operation } from "./modelClient.js";

/** The reference's error for a failed call, without anything secret in it. */
export function toModelError(
  call: { operation: Operation; schema: z.ZodType | undefined },
  error: unknown,
  redactor: Redactor,
  /** A service's: the status in our words, never what the endpoint wrote. */
  quiet = false,
): Error {
  const { operation } = call;
  if (error instanceof ServiceError) return redactor.error(error);
  if (quiet && !NoObjectGeneratedError.isInstance(error)) {
    const status = APICallError.isInstance(error) ? error.statusCode : undefined;
    return new LLMResponseError(operation, quietDetail(error), status ? { status } : undefined);
  }
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

/** What a failed call was, in our words: the status, or why nothing was answered. */
function quietDetail(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof RefusedAddressError || error instanceof RefusedAddressError) {
    const refused = cause instanceof RefusedAddressError ? cause : (error as RefusedAddressError);
    return `the model's endpoint may not be called: ${refused.message}`;
  }
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return "the call was stopped before the model answered";
  }
  const status = APICallError.isInstance(error) ? error.statusCode : undefined;
  if (status === undefined) {
    return APICallError.isInstance(error)
      ? "could not reach the model's endpoint"
      : "the model's answer could not be read";
  }
  if (status >= 300 && status < 400) {
    return `the model's endpoint answered with a redirect; it is not followed`;
  }
  if (status === 401 || status === 403) return "the provider refused the credentials";
  if (status === 404) return "the provider has no such model or endpoint";
  if (status === 429) return "the provider's rate limit was reached";
  if (status >= 500) return "the provider failed";
  return "the provider refused the request";
}
