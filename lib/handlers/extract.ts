/**
 * extract, in the reference's call forms: without an instruction, the page's outline as
 * `{ pageText }`; with one, a single model call over the outline that answers in the caller's
 * zod schema (`{ extraction }` when there is none). URL fields are answered as link ids and
 * mapped back to real URLs; the result is checked against the caller's schema.
 */
import { z } from "zod";
import type { Context } from "../browser/context.js";
import { ZodSchemaValidationError } from "../errors.js";
import type { ModelClient } from "../model/modelClient.js";
import { type ExtractOptions, ExtractOptionsSchema, parseInput } from "../options.js";
import { DEFAULT_TIMEOUT_MS, withTimeout } from "../timeout.js";
import { fromModelAnswer, modelSchemaFor } from "./linkFields.js";
import { pageFor, type SnapshotSettings, snapshotFor } from "./pageSnapshot.js";

export interface ExtractSettings extends SnapshotSettings {
  models: ModelClient;
  /** Records the call in the client's history (parameters are redacted there). */
  record: (parameters: unknown, result: unknown) => void;
}

const SYSTEM = [
  "You extract data from a web page for a program.",
  'The page is given as an outline: one line per element, "[id] role "name" states" or plain text, indented by nesting.',
  "Answer only from the outline (and the screenshot, when there is one); never invent values.",
  "For a link field, answer with the link's id from its [id] line, not its URL.",
  "When a value asked for is not on the page, answer null for it.",
].join("\n");

const Extraction = z.object({
  extraction: z.string().describe("the extracted information, as text"),
});

export async function extractPageText(
  context: Context,
  input: ExtractOptions | undefined,
  settings: ExtractSettings,
): Promise<{ pageText: string }> {
  const options = parseInput(ExtractOptionsSchema.optional(), input, "extract.options") ?? {};
  const page = pageFor(context, options.page);
  return withTimeout(
    "extract",
    options.timeout ?? DEFAULT_TIMEOUT_MS,
    "the page outline",
    async (d) => {
      const snapshot = await snapshotFor(page, options, settings, d);
      return { pageText: snapshot.text };
    },
  );
}

/** extract(instruction[, schema][, options]): one model call; the answer in the schema's type. */
export async function extractData<T>(
  context: Context,
  instruction: string,
  schema: z.ZodType<T> | undefined,
  input: ExtractOptions | undefined,
  settings: ExtractSettings,
): Promise<T | { extraction: string }> {
  const options = parseInput(ExtractOptionsSchema.optional(), input, "extract.options") ?? {};
  const page = pageFor(context, options.page);
  const wanted: z.ZodType = schema ?? Extraction;
  // Structured output wants an object at the top: anything else is wrapped, then unwrapped.
  const wrapped = wanted instanceof z.ZodObject;
  const asObject: z.ZodType = wrapped ? wanted : z.object({ value: wanted });
  const result = await withTimeout(
    "extract",
    options.timeout ?? DEFAULT_TIMEOUT_MS,
    () => "the extraction",
    async (deadline) => {
      const snapshot = await snapshotFor(page, options, settings, deadline);
      deadline.step("model");
      const images = options.screenshot
        ? [{ data: await page.playwrightPage.screenshot({ type: "png" }), mediaType: "image/png" }]
        : undefined;
      const answer = await settings.models.generate({
        operation: "extract",
        system: SYSTEM,
        prompt: `Instruction: ${instruction}\n\nPage outline:\n${snapshot.text}`,
        schema: modelSchemaFor(asObject),
        model: options.model,
        images,
        signal: deadline.signal,
      });
      const mapped = fromModelAnswer(answer.value, asObject, snapshot.urls);
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
      return (wrapped ? checked.data : (checked.data as { value: unknown }).value) as
        | T
        | { extraction: string };
    },
  );
  const { page: _page, ...recorded } = options;
  settings.record({ instruction, ...recorded }, result);
  return result;
}
