/**
 * A scripted model for any job, whatever its instruction and schema: act and observe pick the
 * outline's element whose line shares the most words with the instruction (the first one when
 * none does), and extract answers a plain instruction with the page's title and a schema with
 * its simplest valid value (empty strings, zeros, false, empty lists). For tests that run a
 * fork's job as it is configured (its schema from job.config.ts) on a page of their own.
 */
import type { RequestHandler } from "msw";
import { instructionOf, type ModelRequest, promptOf } from "./modelServer.js";
import { openaiResponses } from "./openai.js";

export function anyJobModel(baseURL?: string): RequestHandler {
  return openaiResponses((request) => {
    const schema = schemaOf(request);
    const prompt = promptOf(request);
    const properties = (schema?.properties ?? {}) as Record<string, unknown>;
    if ("elements" in properties) {
      const chosen = closestLine(prompt, instructionOf(request));
      return {
        elements: chosen
          ? [{ elementId: chosen.id, description: chosen.text, method: "click", arguments: [] }]
          : [],
      };
    }
    if (Object.keys(properties).join() === "extraction") {
      return { extraction: /^document "(.*)"$/m.exec(prompt)?.[1] ?? "" };
    }
    return simplestValue(schema);
  }, baseURL);
}

/** The JSON Schema of the answer the request asks for (Responses API's text.format). */
function schemaOf(request: ModelRequest): Record<string, unknown> | undefined {
  const text = request.body.text as { format?: { schema?: Record<string, unknown> } } | undefined;
  return text?.format?.schema;
}

function closestLine(
  prompt: string,
  instruction: string,
): { id: string; text: string } | undefined {
  const words = new Set(instruction.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
  let best: { id: string; text: string; score: number } | undefined;
  for (const line of prompt.split("\n")) {
    const m = /^\s*\[(\d+)\] (.*)$/.exec(line);
    if (!m) continue;
    const score = (m[2]!.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((w) =>
      words.has(w),
    ).length;
    if (!best || score > best.score) best = { id: m[1]!, text: m[2]!, score };
  }
  return best;
}

/** The simplest value a JSON Schema accepts (every required property, no optional one). */
export function simplestValue(schema: unknown): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum[0];
  if ("const" in s) return s.const;
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(s[key])) return simplestValue(s[key][0]);
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = (s.required ?? Object.keys(properties)) as string[];
      return Object.fromEntries(required.map((k) => [k, simplestValue(properties[k])]));
    }
    case "array":
      return [];
    case "string":
      return "";
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    default:
      return null;
  }
}
