import { describe, expect, it } from "vitest";
import { MetricsRecorder, MetricsSchema } from "../lib/metrics.js";

describe("metrics", () => {
  it("adds usage to its group and to total, and hands out copies", () => {
    const recorder = new MetricsRecorder();
    const usage = {
      promptTokens: 10,
      completionTokens: 2,
      reasoningTokens: 1,
      cachedInputTokens: 4,
      inferenceTimeMs: 50,
    };
    recorder.add("act", usage);
    recorder.add("extract", usage);
    const snapshot = recorder.snapshot();
    expect(MetricsSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot).toMatchObject({
      actPromptTokens: 10,
      extractPromptTokens: 10,
      observePromptTokens: 0,
    });
    expect(snapshot).toMatchObject({
      totalPromptTokens: 20,
      totalCachedInputTokens: 8,
      totalInferenceTimeMs: 100,
    });
    snapshot.totalPromptTokens = 0;
    expect(recorder.snapshot().totalPromptTokens).toBe(20);
  });
});
