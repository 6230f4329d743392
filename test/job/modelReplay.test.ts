/**
 * A replay's model: each call answered from the recording when it is the recorded call, and
 * otherwise refused with what changed (the instruction, the schema, the outline, Wayfarer's own
 * instructions, a call too many). Pure logic: the calls are made here as the handlers make them.
 */
import { describe, expect, it } from "vitest";
import type { RecordedModelCall } from "../../lib/job/recording/format.js";
import { systemHash } from "../../lib/job/recording/modelRecorder.js";
import { ModelReplay } from "../../lib/job/recording/modelReplay.js";
import type { TappedCall } from "../../lib/model/modelTap.js";

const USAGE = {
  promptTokens: 900,
  completionTokens: 12,
  reasoningTokens: 0,
  cachedInputTokens: 0,
  inferenceTimeMs: 40,
};
const SCHEMA = { type: "object", properties: { extraction: { type: "string" } } };
const PROMPT = 'Instruction: the price\n\nPage outline:\ndocument "Prices"\nGreen tea 4.50';

const call = (over: Partial<TappedCall> = {}): TappedCall => ({
  operation: "extract",
  system: "You extract data.",
  prompt: PROMPT,
  schema: SCHEMA,
  model: "openai/gpt-4.1-mini",
  ...over,
});

const recorded: RecordedModelCall = {
  operation: "extract",
  model: "openai/gpt-4.1-mini",
  instruction: "the price",
  prompt: "model/1-extract.txt",
  system: systemHash("You extract data."),
  schema: SCHEMA,
  answer: { extraction: "4.50" },
  usage: USAGE,
};

const replay = () => new ModelReplay([recorded], [PROMPT], "recordings/job");

describe("a replay's model", () => {
  it("answers the recorded call with the recorded answer and usage, once", () => {
    const model = replay();
    expect(model.answer(call())).toEqual({ value: { extraction: "4.50" }, usage: USAGE });
    expect(model.unused()).toBe(0);
    expect(() => model.answer(call())).toThrow(
      'the job asks the model more than the recording holds (1 call); this one is extract "the price"',
    );
  });

  it.each([
    [
      { prompt: PROMPT.replace("the price", "the cheapest tea") },
      'the instruction changed: it was "the price", it is now "the cheapest tea"',
    ],
    [
      { schema: { type: "object", properties: { price: { type: "number" } } } },
      "the answer's schema changed",
    ],
    [
      { prompt: PROMPT.replace("4.50", "5.25") },
      'the page outline changed (the page, or how Wayfarer reads it): line 2 was "Green tea 4.50", is now "Green tea 5.25"',
    ],
    [{ system: "You extract data, carefully." }, "Wayfarer's instructions to the model changed"],
    [{ operation: "observe" }, "the recording's call 1 is extract, this one is observe"],
  ])("refuses a changed call, saying what changed (%#)", (changed, says) => {
    const model = replay();
    expect(() => model.answer(call(changed))).toThrow(says);
    expect(model.failure()?.message).toContain("recordings/job cannot answer model call 1");
    expect(model.failure()?.message).toContain("record again: npm start -- --record");
  });
});
