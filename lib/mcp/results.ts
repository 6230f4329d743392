/**
 * What a tool answers, as MCP content blocks, and the one path every answer leaves by: variables'
 * values become their `%name%`, keys are redacted. The shapes are the protocol's (CallToolResult),
 * written here so that only server.ts imports the SDK.
 */

import { StaleIdError } from "../agent/elementById.js";
import { scrub } from "../agent/loop.js";
import type { ToolOutput } from "../agent/tools/defineTool.js";
import type { Redactor } from "../log.js";
import type { Variables } from "../options.js";
import { readableError, readableMessage, surface } from "../readableError.js";

export type ToolContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: "image/png" };

export interface ToolAnswer {
  content: ToolContent[];
  /** JSON for clients that read it (extract's object); the same data is in a text block too. */
  structuredContent?: Record<string, unknown>;
  /** A tool error: the model reads the message and may try something else. */
  isError?: boolean;
}

export function textAnswer(text: string): ToolAnswer {
  return { content: [{ type: "text", text }] };
}

/**
 * An agent tool's output: its text, and its picture as an image block. An action that was not
 * done (act's "Failed: …") is a tool error too, though its text also shows the page after.
 */
export function fromOutput(output: ToolOutput): ToolAnswer {
  const content: ToolContent[] = [{ type: "text", text: output.text }];
  if (output.image) {
    content.push({ type: "image", data: output.image.toString("base64"), mimeType: "image/png" });
  }
  const failed = output.failed !== undefined || output.action?.success === false;
  return failed ? { content, isError: true } : { content };
}

/**
 * A failed call as the model reads it: one readable line (the same words the agent's model gets)
 * after the error's class when that says more than "an error", with Playwright's whole text sent
 * to `debug` instead. A stale id keeps its class: it is the model's cue to read again, with the
 * tool that is called read here (the agent's is outline).
 */
export function errorAnswer(
  tool: string,
  error: unknown,
  debug: (detail: string) => void,
): ToolAnswer {
  const shown = surface(tool, error, debug, (e) =>
    e instanceof StaleIdError ? e : readableError(tool, e),
  );
  const name = shown instanceof Error && !GENERIC.has(shown.name) ? `${shown.name}: ` : "";
  const text = `${name}${readableMessage(shown)}`.replace(
    /\bwith outline\b/g,
    "with the read tool",
  );
  return { content: [{ type: "text", text }], isError: true };
}

/** Error classes whose name tells the model nothing. */
const GENERIC = new Set(["Error", "ServiceError"]);

/**
 * The answer as it may leave the server: every text, and the structured data, with the values
 * of `variables` as their `%name%` and every secret the redactor knows replaced. Images were
 * masked when they were taken (maskedCapture.ts).
 */
export function scrubAnswer(
  answer: ToolAnswer,
  variables: Variables | undefined,
  redactor: Redactor,
): ToolAnswer {
  const content = answer.content.map((block) =>
    block.type === "text" ? { ...block, text: scrub(block.text, variables, redactor) } : block,
  );
  const structured = answer.structuredContent;
  return {
    ...answer,
    content,
    ...(structured ? { structuredContent: scrub(structured, variables, redactor) } : {}),
  };
}
