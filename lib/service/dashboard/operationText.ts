/**
 * An operation's request and answer in words, as the dashboard shows them: what it was asked
 * (navigate's URL, act's input, extract's and observe's instruction, the agent's task) and what
 * it answered (its result as JSON, bounded) or why it failed (the readable message). Read from
 * the parsed request, never kept whole: its options carry variables' values and model keys.
 */
import { readableMessage } from "../../readableError.js";
import type { ShownText } from "./shownText.js";

/** How much of an answer the dashboard keeps: the caller got all of it. */
export const ANSWER_CHARS = 4_000;
const ASKED_CHARS = 2_000;
const ERROR_CHARS = 2_000;

const str = (value: unknown) => (typeof value === "string" ? value : undefined);
const record = (value: unknown) =>
  value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** What `method` was asked, in words, or undefined when the request says nothing to show. */
export function askedText(method: string, body: unknown, shown: ShownText): string | undefined {
  const asked = askedOf(method, record(body) ?? {});
  return asked === undefined ? undefined : shown.bounded(asked, ASKED_CHARS);
}

function askedOf(method: string, body: Record<string, unknown>): string | undefined {
  switch (method) {
    case "navigate":
      return str(body.url);
    case "act": {
      const input = body.input;
      if (typeof input === "string") return input;
      // An Action from observe: its words, and what it does to which element.
      const action = record(input);
      if (!action) return undefined;
      const args = Array.isArray(action.arguments) ? action.arguments.map(String) : [];
      const what = [str(action.method), ...args.map((a) => JSON.stringify(a))].join(" ");
      return `${str(action.description) ?? "an action"} (${what.trim()} on ${str(action.selector) ?? "?"})`;
    }
    case "extract":
      return str(body.instruction) ?? "the page's text (no instruction)";
    case "observe":
      return str(body.instruction) ?? "every action the page offers (no instruction)";
    case "agentExecute":
      return str(record(body.executeOptions)?.instruction);
    default:
      return undefined;
  }
}

/**
 * The server cache's answer wraps the result with its status (routes/operations.ts): an
 * instance of a class, never a plain object as a wire result is.
 */
function unwrapCached(result: unknown): { result: unknown; cache?: "HIT" | "MISS" } {
  if (result && typeof result === "object" && Object.getPrototypeOf(result) !== Object.prototype) {
    const { status, result: inner } = result as { status?: unknown; result?: unknown };
    if ((status === "HIT" || status === "MISS") && "result" in result) {
      return { result: inner, cache: status };
    }
  }
  return { result };
}

/** What an operation answered, as JSON text the dashboard may show (an agent's steps apart). */
export function answerText(
  method: string,
  result: unknown,
  shown: ShownText,
): { answer?: string; cache?: "HIT" | "MISS"; actions?: unknown[] } {
  const { result: inner, cache } = unwrapCached(result);
  if (method === "agentExecute") {
    const run = record(record(inner)?.result);
    if (!run) return { cache };
    // The steps are shown one by one; the answer is how the run ended.
    const { actions, ...ended } = run;
    return {
      answer: json(ended, shown),
      ...(Array.isArray(actions) ? { actions } : {}),
    };
  }
  if (inner === null || inner === undefined) return { cache };
  return { answer: json(inner, shown), ...(cache ? { cache } : {}) };
}

function json(value: unknown, shown: ShownText): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return shown.bounded(text, ANSWER_CHARS);
}

/** Why an operation failed, in one readable message the dashboard may show. */
export function errorText(error: unknown, shown: ShownText): string {
  return shown.bounded(readableMessage(error), ERROR_CHARS);
}
