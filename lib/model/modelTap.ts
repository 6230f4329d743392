/**
 * A tap on the structured model calls (act, observe, extract): a recording keeps each call and
 * its answer, a replay answers calls itself so that no provider is asked (lib/job/recording/).
 * It sees the call as the handler made it, before any provider's wire format, so a recording
 * made with one provider reads the same as one made with another.
 */
import type { Usage } from "../metrics.js";

/** A call as the tap sees it: plain data. */
export interface TappedCall {
  operation: string;
  /** The operation's own instructions to the model (the client's systemPrompt joined). */
  system: string;
  /** The instruction and the page outline, as sent. */
  prompt: string;
  /** The answer's shape, as JSON Schema. */
  schema: unknown;
  /** `provider/model` of the model the call is for. */
  model: string;
}

export interface ModelTap {
  /**
   * Before the provider is asked: an answer here is the model's (its usage counted as if
   * spent), undefined lets the provider answer; a throw fails the call with that error.
   */
  answer?(call: TappedCall): { value: unknown; usage: Usage } | undefined;
  /** After the provider answered the call. */
  answered?(call: TappedCall, value: unknown, usage: Usage): void;
}
