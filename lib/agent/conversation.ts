/**
 * The messages of one run. Outlines and screenshots describe a moment: once a newer one is in
 * the conversation, older ones are cut to a line, so a step's prompt does not grow with
 * every page the agent has read.
 */
import type { ModelMessage } from "../model/modelClient.js";

type ToolOutputPart = Extract<
  Extract<ModelMessage, { role: "tool" }>["content"][number],
  { type: "tool-result" }
>;

export class Conversation {
  readonly messages: ModelMessage[] = [];
  private perishable: ToolOutputPart[] = [];

  constructor(task: string) {
    this.messages.push({ role: "user", content: task });
  }

  addAssistant(messages: ModelMessage[]): void {
    this.messages.push(...messages);
  }

  addToolResults(
    results: {
      toolCallId: string;
      toolName: string;
      text: string;
      image?: Buffer;
      error?: boolean;
      perishable?: boolean;
    }[],
  ): void {
    if (!results.length) return;
    const parts = results.map((r): ToolOutputPart => {
      const output: ToolOutputPart["output"] = r.error
        ? { type: "error-text", value: r.text }
        : r.image
          ? {
              type: "content",
              value: [
                { type: "text", text: r.text },
                { type: "image-data", data: r.image.toString("base64"), mediaType: "image/png" },
              ],
            }
          : { type: "text", value: r.text };
      return { type: "tool-result", toolCallId: r.toolCallId, toolName: r.toolName, output };
    });
    const fresh = parts.filter((_, i) => results[i]!.perishable && !results[i]!.error);
    if (fresh.length) {
      for (const old of this.perishable) {
        old.output = {
          type: "text",
          value: `(an earlier ${old.toolName} result, left out: the page may have changed since; call ${old.toolName} again to see it now)`,
        };
      }
      this.perishable = fresh;
    }
    this.messages.push({ role: "tool", content: parts });
  }
}
