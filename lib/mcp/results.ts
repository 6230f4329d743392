/**
 * What a tool answers, as MCP content blocks, and the one path every answer leaves by: variables'
 * values become their `%name%`, keys are redacted. The shapes are the protocol's (CallToolResult),
 * written here so that only server.ts imports the SDK.
 */
import { scrub } from "../agent/loop.js";
import type { ToolOutput } from "../agent/tools/defineTool.js";
import type { Redactor } from "../log.js";
import type { Variables } from "../options.js";
import { readableMessage, surface } from "../readableError.js";

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

/** An agent tool's output: its text, and its picture as an image block. */
export function fromOutput(output: ToolOutput): ToolAnswer {
  const content: ToolContent[] = [{ type: "text", text: output.text }];
  if (output.image) {
    content.push({ type: "image", data: output.image.toString("base64"), mimeType: "image/png" });
  }
  return { content };
}

/**
 * A failed call as the model reads it: the error's class and one readable line (the same words
 * the agent's model gets), with Playwright's whole text sent to `debug` instead.
 */
export function errorAnswer(
  tool: string,
  error: unknown,
  debug: (detail: string) => void,
): ToolAnswer {
  const shown = surface(tool, error, debug);
  const name = shown instanceof Error && shown.name !== "Error" ? `${shown.name}: ` : "";
  return { content: [{ type: "text", text: `${name}${readableMessage(shown)}` }], isError: true };
}

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
