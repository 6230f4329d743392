/**
 * The model tap of a replay: each call is answered from the recording, in the order recorded,
 * when it is the call the recording holds; otherwise the call fails, saying what changed (the
 * instruction, the answer's schema, the page outline, or Wayfarer's own instructions).
 */
import { isDeepStrictEqual } from "node:util";
import { ServiceError } from "../../errors.js";
import type { Usage } from "../../metrics.js";
import type { ModelTap, TappedCall } from "../../model/modelTap.js";
import type { RecordedModelCall } from "./format.js";
import { systemHash } from "./modelRecorder.js";
import { firstDifference, promptParts } from "./promptParts.js";

/** A model call the recording cannot answer: the message says what changed. */
export class RecordingMismatchError extends ServiceError {}

export class ModelReplay implements ModelTap {
  private next = 0;
  private mismatch: RecordingMismatchError | undefined;

  /** `prompts[i]` is the prompt the recording's call i was sent. */
  constructor(
    private readonly calls: RecordedModelCall[],
    private readonly prompts: string[],
    /** The recording's name, for messages. */
    private readonly name: string,
  ) {}

  answer(call: TappedCall): { value: unknown; usage: Usage } {
    const i = this.next++;
    const recorded = this.calls[i];
    const why = recorded
      ? this.difference(call, recorded, this.prompts[i] ?? "")
      : `the job asks the model more than the recording holds (${this.calls.length} call${this.calls.length === 1 ? "" : "s"}); this one is ${call.operation} "${promptParts(call.prompt).instruction}"`;
    if (why) {
      this.mismatch ??= new RecordingMismatchError(
        `${this.name} cannot answer model call ${i + 1} (${call.operation}): ${why}. If the change is meant, record again: npm start -- --record`,
      );
      throw this.mismatch;
    }
    return { value: recorded!.answer, usage: recorded!.usage };
  }

  /** The first call the recording could not answer, if any. */
  failure(): RecordingMismatchError | undefined {
    return this.mismatch;
  }

  /** Calls the recording holds that the replay never made. */
  unused(): number {
    return Math.max(0, this.calls.length - this.next);
  }

  private difference(call: TappedCall, recorded: RecordedModelCall, prompt: string): string {
    if (call.operation !== recorded.operation) {
      return `the recording's call ${this.next} is ${recorded.operation}, this one is ${call.operation}`;
    }
    const now = promptParts(call.prompt);
    if (now.instruction !== recorded.instruction) {
      return `the instruction changed: it was "${recorded.instruction}", it is now "${now.instruction}"`;
    }
    if (!isDeepStrictEqual(call.schema, recorded.schema)) {
      return "the answer's schema changed (the job's schema, or the shape Wayfarer asks the model for)";
    }
    if (call.prompt !== prompt) {
      const before = promptParts(prompt).outline;
      return before === now.outline
        ? "the prompt changed around the page outline (Wayfarer's wording)"
        : `the page outline changed (the page, or how Wayfarer reads it): ${firstDifference(before, now.outline)}`;
    }
    if (systemHash(call.system) !== recorded.system) {
      return "Wayfarer's instructions to the model changed (an upgrade, or the client's systemPrompt)";
    }
    return "";
  }
}
