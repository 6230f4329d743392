/**
 * The model tap of a recording run: each act, observe and extract call is kept, as sent, with
 * the model's answer and usage. What is kept is scrubbed when the recording is written, once
 * every secret of the run is known.
 */
import { createHash } from "node:crypto";
import type { Usage } from "../../metrics.js";
import type { ModelTap, TappedCall } from "../../model/modelTap.js";

export interface KeptCall {
  call: TappedCall;
  answer: unknown;
  usage: Usage;
}

export class ModelRecorder implements ModelTap {
  private readonly kept: KeptCall[] = [];

  answered(call: TappedCall, answer: unknown, usage: Usage): void {
    this.kept.push({ call, answer, usage });
  }

  calls(): KeptCall[] {
    return [...this.kept];
  }
}

/** The operation's instructions are long and Wayfarer's own: a hash tells whether they changed. */
export function systemHash(system: string): string {
  return createHash("sha256").update(system).digest("hex");
}
