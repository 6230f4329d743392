/**
 * The messages of one run. Outlines and screenshots describe a moment: once a newer one is in
 * the conversation (an outline may come with an action's result), older ones are cut to a
 * line, so a step's prompt does not grow with every page the agent has read. A screenshot goes
 * to the model as an image in a user message right after the tool results, the one place every
 * provider and API format takes an image (a chat-completions tool result would carry it as
 * base64 text). Notes from the loop (steps running low) go in as user messages too.
 */
import type { ModelMessage } from "../model/modelClient.js";
import type { SafetyCheck } from "../options.js";

type ToolOutputPart = Extract<
  Extract<ModelMessage, { role: "tool" }>["content"][number],
  { type: "tool-result" }
>;
type UserMessage = Extract<ModelMessage, { role: "user" }>;

export interface ToolResultEntry {
  toolCallId: string;
  toolName: string;
  text: string;
  image?: Buffer;
  /** The image inside the result itself (computer-use protocols), not in a user message. */
  imageInResult?: boolean;
  /** For the provider with the result: acknowledged safety checks, the page's URL. */
  resultMeta?: {
    acknowledgedSafetyChecks?: SafetyCheck[];
    url?: string;
  };
  error?: boolean;
  perishable?: boolean;
  /** What a perishable result becomes once a newer one of its kind arrives. */
  shortened?: string;
}

export class Conversation {
  readonly messages: ModelMessage[] = [];
  /**
   * Cuts the latest results of a kind to a line once newer ones of that kind arrive: outlines
   * by outlines, screenshots by screenshots (a screenshot must outlive the outline read after
   * it: coordinates are named in it).
   */
  private shorten = new Map<string, (() => void)[]>();

  constructor(task: string, screenshot?: Buffer) {
    if (!screenshot) {
      this.messages.push({ role: "user", content: task });
      return;
    }
    // A screen-driven model starts from what the screen shows.
    const message: UserMessage = {
      role: "user",
      content: [
        { type: "text", text: task },
        { type: "image", image: screenshot.toString("base64"), mediaType: "image/png" },
      ],
    };
    this.messages.push(message);
    this.shorten.set("screenshot", [
      () => {
        message.content = task;
      },
    ]);
  }

  /** A word from the loop itself (steps running low), read with the next step. */
  addNote(text: string): void {
    this.messages.push({ role: "user", content: text });
  }

  addAssistant(messages: ModelMessage[]): void {
    this.messages.push(...messages);
  }

  addToolResults(results: ToolResultEntry[]): void {
    if (!results.length) return;
    const parts = results.map(
      (r): ToolOutputPart => ({
        type: "tool-result",
        toolCallId: r.toolCallId,
        toolName: r.toolName,
        output: r.error
          ? { type: "error-text", value: r.text }
          : r.image && r.imageInResult
            ? {
                type: "content",
                value: [
                  { type: "text", text: r.text },
                  { type: "image-data", data: r.image.toString("base64"), mediaType: "image/png" },
                ],
              }
            : { type: "text", value: r.text },
        ...(r.resultMeta
          ? { providerOptions: { wayfarer: JSON.parse(JSON.stringify(r.resultMeta)) } }
          : {}),
      }),
    );
    const images = results.filter((r) => r.image && !r.error && !r.imageInResult);
    const imageMessage: UserMessage | undefined = images.length
      ? {
          role: "user",
          content: images.flatMap((r) => [
            { type: "text" as const, text: `The ${r.toolName} result (${r.toolCallId}):` },
            { type: "image" as const, image: r.image!.toString("base64"), mediaType: "image/png" },
          ]),
        }
      : undefined;
    const fresh = new Map<string, (() => void)[]>();
    const add = (kind: string, cut: () => void) =>
      fresh.set(kind, [...(fresh.get(kind) ?? []), cut]);
    for (const [i, r] of results.entries()) {
      if (!r.perishable || r.error || (r.image && !r.imageInResult)) continue;
      const part = parts[i]!;
      // Text that perishes is an outline, whichever tool answered with it (outline, act by id).
      add(r.image ? "screenshot" : "outline", () => {
        part.output = {
          type: "text",
          value:
            r.shortened ??
            `(an earlier ${r.toolName} result, left out: the page may have changed since; call ${r.toolName} again to see it now)`,
        };
      });
    }
    if (imageMessage) {
      add("screenshot", () => {
        imageMessage.content = "(earlier screenshots, left out)";
      });
    }
    for (const [kind, cuts] of fresh) {
      for (const cut of this.shorten.get(kind) ?? []) cut();
      this.shorten.set(kind, cuts);
    }
    this.messages.push({ role: "tool", content: parts });
    if (imageMessage) this.messages.push(imageMessage);
  }
}
