/**
 * A computer-use model does one thing: drive a screen through its provider's computer tool.
 * Asked for structured output (act, extract, observe) or offered other tools (an agent in dom
 * or hybrid mode), it says so instead of answering the wrong question.
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { UnsupportedModelError } from "../errors.js";

export function refuseOtherUses(options: LanguageModelV3CallOptions, label: string): void {
  const otherTools = (options.tools ?? []).filter((t) => t.name !== "computer");
  if (options.responseFormat?.type === "json" || otherTools.length || !options.tools?.length) {
    throw new UnsupportedModelError(label, ["cua"], {
      operation: 'anything but agent mode "cua" (it only drives a screen)',
      supportedLabel: "Modes it can run",
    });
  }
}
