/**
 * Token and time accounting per operation group. The model layer adds to it; until a model call
 * happens every figure is 0.
 */
import { z } from "zod";

const GROUPS = ["act", "extract", "observe", "agent", "total"] as const;
export type MetricsGroup = (typeof GROUPS)[number];
const FIELDS = [
  "PromptTokens",
  "CompletionTokens",
  "ReasoningTokens",
  "CachedInputTokens",
  "InferenceTimeMs",
] as const;

export const MetricsSchema = z.object({
  actPromptTokens: z.number(),
  actCompletionTokens: z.number(),
  actReasoningTokens: z.number(),
  actCachedInputTokens: z.number(),
  actInferenceTimeMs: z.number(),
  extractPromptTokens: z.number(),
  extractCompletionTokens: z.number(),
  extractReasoningTokens: z.number(),
  extractCachedInputTokens: z.number(),
  extractInferenceTimeMs: z.number(),
  observePromptTokens: z.number(),
  observeCompletionTokens: z.number(),
  observeReasoningTokens: z.number(),
  observeCachedInputTokens: z.number(),
  observeInferenceTimeMs: z.number(),
  agentPromptTokens: z.number(),
  agentCompletionTokens: z.number(),
  agentReasoningTokens: z.number(),
  agentCachedInputTokens: z.number(),
  agentInferenceTimeMs: z.number(),
  totalPromptTokens: z.number(),
  totalCompletionTokens: z.number(),
  totalReasoningTokens: z.number(),
  totalCachedInputTokens: z.number(),
  totalInferenceTimeMs: z.number(),
});
export type Metrics = z.infer<typeof MetricsSchema>;

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  inferenceTimeMs: number;
}

export class MetricsRecorder {
  private readonly figures = Object.fromEntries(
    GROUPS.flatMap((g) => FIELDS.map((f) => [`${g}${f}`, 0])),
  ) as Metrics;

  add(group: Exclude<MetricsGroup, "total">, usage: Usage): void {
    for (const g of [group, "total"] as const) {
      this.figures[`${g}PromptTokens`] += usage.promptTokens;
      this.figures[`${g}CompletionTokens`] += usage.completionTokens;
      this.figures[`${g}ReasoningTokens`] += usage.reasoningTokens;
      this.figures[`${g}CachedInputTokens`] += usage.cachedInputTokens;
      this.figures[`${g}InferenceTimeMs`] += usage.inferenceTimeMs;
    }
  }

  snapshot(): Metrics {
    return { ...this.figures };
  }
}
