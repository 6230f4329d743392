/**
 * How deep and how big a caller's JSON is, measured without recursion: JSON.parse takes a body
 * nested 700,000 levels deep, and any recursive walk after it (JSON.stringify, a cache key, a
 * schema converter) then overflows the stack. Measured once at the boundary, everything past it
 * may recurse freely.
 */
import type { z } from "zod";
import { ServiceValidationError } from "../errors.js";

/** How deep any value a caller sends may nest (objects and arrays, the value itself level 1). */
export const MAX_JSON_DEPTH = 64;

/**
 * How deep a whole request body may nest: room for a value of MAX_JSON_DEPTH inside the body's
 * own fields (for the service's JSON parser, which sees every body before any route).
 */
export const MAX_BODY_DEPTH = 512;

export interface NestingLimits {
  /** Levels of objects and arrays; the value itself is level 1. */
  depth: number;
  /** Values in all (objects, arrays, strings, numbers, booleans, nulls), the value included. */
  nodes?: number;
}

/** Which limit the value passes first ("depth" or "nodes"), or undefined when within both. */
export function nestingExcess(
  value: unknown,
  limits: NestingLimits,
): "depth" | "nodes" | undefined {
  const maxNodes = limits.nodes ?? Number.POSITIVE_INFINITY;
  if (!isContainer(value)) return undefined;
  if (limits.depth < 1) return "depth";
  // One iterator per level: memory grows with the depth (bounded), not with the width.
  const stack: Iterator<unknown>[] = [childrenOf(value)];
  let nodes = 1;
  while (stack.length > 0) {
    const next = stack[stack.length - 1]!.next();
    if (next.done) {
      stack.pop();
      continue;
    }
    nodes++;
    if (nodes > maxNodes) return "nodes";
    if (isContainer(next.value)) {
      if (stack.length + 1 > limits.depth) return "depth";
      stack.push(childrenOf(next.value));
    }
  }
  return undefined;
}

/**
 * A zod check for a field that holds free-form JSON (`z.unknown()` inside): refused past
 * `depth` levels, with a message naming the limit and what to do.
 */
export function nestedAtMost(depth: number = MAX_JSON_DEPTH) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    if (nestingExcess(value, { depth }) === undefined) return;
    ctx.addIssue({
      code: "custom",
      message: `expected JSON nested at most ${depth} levels deep (objects and arrays), but it nests deeper: flatten it`,
    });
  };
}

/**
 * A whole request body nested past MAX_BODY_DEPTH, as the 400 to answer; undefined when it is
 * within. For the JSON parser that sees every body before any route (or forward) walks it.
 */
export function deepBodyRefusal(body: unknown): ServiceValidationError | undefined {
  if (nestingExcess(body, { depth: MAX_BODY_DEPTH }) === undefined) return undefined;
  return new ServiceValidationError("body", [
    {
      path: [],
      message: `expected JSON nested at most ${MAX_BODY_DEPTH} levels deep (objects and arrays), but it nests deeper: flatten it`,
    },
  ]);
}

function isContainer(value: unknown): value is object {
  return value !== null && typeof value === "object";
}

function childrenOf(value: object): Iterator<unknown> {
  return (Array.isArray(value) ? value : Object.values(value)).values();
}
