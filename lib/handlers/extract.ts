/**
 * extract, in the reference's call forms: without an instruction, the page's outline as
 * `{ pageText }`; with one, a single model call over the outline that answers in the caller's
 * zod schema (`{ extraction }` when there is none). URL fields are answered as link ids and
 * mapped back to real URLs; the result is checked against the caller's schema.
 */
import { z } from "zod";
import type { ExtractRequest } from "../api/operations.js";
import type { Page } from "../browser/page.js";
import { ZodSchemaValidationError } from "../errors.js";
import type { Models } from "../model/modelClient.js";
import { withinCap } from "../snapshot/chunks.js";
import type { Deadline } from "../timeout.js";
import { fromModelAnswer, modelSchemaFor } from "./linkFields.js";
import { type SnapshotSettings, snapshotFor } from "./pageSnapshot.js";

export interface ExtractSettings extends SnapshotSettings {
  models: Models;
}

const SYSTEM = [
  "You extract data from a web page for a program.",
  'The page is given as an outline: first document "title" (the page\'s title), then one line per element, "[id] role "name" states" or plain text, indented by nesting.',
  "Answer only from the outline (and the screenshot, when there is one); never invent values.",
  "For a link field, answer with the link's id from its [id] line, not its URL.",
  "When a value asked for is not on the page, answer null for it.",
].join("\n");

const PART_NOTE =
  "The outline comes in parts; this is one of them. Its first lines may repeat the lines that enclose it (context from the part before): do not extract items from those again. Answer from this part only; values it does not show are null.";

/**
 * Answers from consecutive parts of a page, as one: lists are joined, texts of `extraction`
 * joined by lines, and any other value is the first part's unless that part had none.
 */
export function mergeAnswers(a: unknown, b: unknown, key = "", depth = 0): unknown {
  if (a === null || a === undefined || a === "") return b;
  if (b === null || b === undefined || b === "") return a;
  // Items a part saw nothing of (every field null) are not items.
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b].filter((x) => !allNull(x));
  if (typeof a === "string" && typeof b === "string" && key === "extraction" && depth === 1) {
    return `${a}\n${b}`;
  }
  if (typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b as Record<string, unknown>)) {
      out[k] = mergeAnswers(out[k], v, k, depth + 1);
    }
    return out;
  }
  return a;
}

function allNull(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => v === null || v === undefined)
  );
}

const Extraction = z.object({
  extraction: z.string().describe("the extracted information, as text"),
});

/** The same wrapper for the same schema: what the model is asked is made once per schema. */
const wrappers = new WeakMap<z.ZodType, z.ZodType>();
function wrapperOf(wanted: z.ZodType): z.ZodType {
  let wrapper = wrappers.get(wanted);
  if (!wrapper) {
    wrapper = z.object({ value: wanted });
    wrappers.set(wanted, wrapper);
  }
  return wrapper;
}

/** extract's options as they arrive, parsed (the page is the one the call is about). */
export type ExtractCallOptions = NonNullable<ExtractRequest["options"]>;

export async function extractPageText(
  page: Page,
  options: ExtractCallOptions,
  settings: ExtractSettings,
  deadline: Deadline,
): Promise<{ pageText: string }> {
  const snapshot = await snapshotFor(page, options, settings, deadline);
  return { pageText: snapshot.text };
}

/** extract(instruction[, schema][, options]): one model call; the answer in the schema's type. */
export async function extractData(
  page: Page,
  instruction: string,
  schema: z.ZodType | undefined,
  options: ExtractCallOptions,
  settings: ExtractSettings,
  deadline: Deadline,
): Promise<unknown> {
  const wanted: z.ZodType = schema ?? Extraction;
  // Structured output wants an object at the top: anything else is wrapped, then unwrapped.
  const wrapped = wanted instanceof z.ZodObject;
  const asObject: z.ZodType = wrapped ? wanted : wrapperOf(wanted);
  const snapshot = await snapshotFor(page, options, settings, deadline);
  const images = options.screenshot
    ? [{ data: await page.playwrightPage.screenshot({ type: "png" }), mediaType: "image/png" }]
    : undefined;
  // Within the budget, one call; over it, the chunks in page order, answers merged.
  const parts =
    snapshot.chunks.length <= 1
      ? [snapshot.text]
      : withinCap(
          snapshot.chunks.map((c) => c.text),
          settings.maxChunksPerCall,
          (read) =>
            settings.logger.warn("extract", "the page is too large to read whole", {
              partsRead: read,
              parts: snapshot.chunks.length,
              why: "maxChunksPerCall: the answer comes from the parts read, from the top",
            }),
        );
  let merged: unknown;
  for (const [i, part] of parts.entries()) {
    deadline.step(parts.length > 1 ? `model (chunk ${i + 1} of ${parts.length})` : "model");
    const answer = await settings.models.generate({
      operation: "extract",
      system: parts.length > 1 ? `${SYSTEM}\n${PART_NOTE}` : SYSTEM,
      prompt: `Instruction: ${instruction}\n\nPage outline${parts.length > 1 ? ` (part ${i + 1} of ${parts.length})` : ""}:\n${part}`,
      schema: modelSchemaFor(asObject, parts.length > 1),
      model: options.model,
      images: i === 0 ? images : undefined,
      signal: deadline.signal,
    });
    merged = i === 0 ? answer.value : mergeAnswers(merged, answer.value);
  }
  // Nothing in any part answers a plain instruction: an empty extraction, not a failure.
  if (!schema && (merged as { extraction?: unknown } | undefined)?.extraction == null) {
    merged = { extraction: "" };
  }
  const mapped = fromModelAnswer(merged, asObject, snapshot.urls);
  const checked = asObject.safeParse(mapped);
  if (!checked.success) {
    // Reported in the caller's terms: without the wrapper a non-object schema got.
    throw new ZodSchemaValidationError(
      wrapped ? mapped : (mapped as { value?: unknown } | undefined)?.value,
      checked.error.issues.map((i) => ({
        path: wrapped ? i.path : i.path.slice(1),
        message: i.message,
      })),
    );
  }
  // The data as checked, before the schema's own transforms: the caller parses it with its
  // schema (in this process or across the wire), and a value must not be transformed twice.
  return wrapped ? mapped : (mapped as { value: unknown }).value;
}
