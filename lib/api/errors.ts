/**
 * Errors on the wire: `{name, code, message, …fields}`, rebuilt on the other side as the same
 * class, so that `instanceof` and `error.code` work across a process boundary. The fields that
 * travel are the ones the error registry lists for the class.
 */
import { z } from "zod";
import { errorEntryByCode, errorEntryOf } from "../errorRegistry.js";
import { ServiceError } from "../errors.js";

export const WireErrorSchema = z
  .looseObject({
    name: z.string().min(1),
    code: z.string().min(1),
    message: z.string(),
  })
  .describe("An error as it crosses a process boundary: its class name, code, message and fields.");
export type WireError = z.infer<typeof WireErrorSchema>;

/** The error as data. A foreign error travels as a ServiceError with its message. */
export function toWireError(error: unknown): WireError {
  if (!(error instanceof ServiceError)) {
    const message = error instanceof Error ? error.message : String(error);
    return { name: "ServiceError", code: ServiceError.code, message };
  }
  const entry = errorEntryOf(error.name);
  const fields: Record<string, unknown> = {};
  for (const field of entry?.fields ?? []) {
    const value = plain((error as unknown as Record<string, unknown>)[field]);
    if (value !== undefined) fields[field] = value;
  }
  return { ...fields, name: error.name, code: error.code, message: error.message };
}

/**
 * The same class again, with its message and fields (its constructor is not run: the message
 * was written on the other side). An unknown name becomes a ServiceError that keeps it.
 */
export function fromWireError(input: unknown): ServiceError {
  const parsed = WireErrorSchema.safeParse(input);
  if (!parsed.success) {
    return new ServiceError(`The other side failed without a readable error: ${show(input)}`);
  }
  const wire = parsed.data;
  const entry = errorEntryOf(wire.name) ?? errorEntryByCode(wire.code);
  if (!entry) {
    const error = new ServiceError(wire.message);
    error.name = wire.name;
    return error;
  }
  const error = Object.create(entry.type.prototype) as ServiceError;
  Object.defineProperty(error, "message", { value: wire.message, writable: true });
  error.name = entry.name;
  for (const field of entry.fields ?? []) {
    if (field in wire) (error as unknown as Record<string, unknown>)[field] = wire[field];
  }
  Object.defineProperty(error, "stack", {
    value: `${entry.name}: ${wire.message}\n    (raised on the other side of the wire)`,
    writable: true,
  });
  return error;
}

/** A field's value as JSON can carry it (symbols in paths become strings). */
function plain(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(
      JSON.stringify(value, (_key, v) => (typeof v === "symbol" ? String(v) : v)),
    ) as unknown;
  } catch {
    return String(value);
  }
}

function show(input: unknown): string {
  try {
    return JSON.stringify(input).slice(0, 200);
  } catch {
    return String(input).slice(0, 200);
  }
}
