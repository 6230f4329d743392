/**
 * Gemini's computer-use models (gemini-2.5-computer-use-preview and later) over
 * generateContent, which the AI SDK has no binding for: an AI SDK LanguageModel speaking that
 * protocol over HTTP itself, as openaiComputerUse.ts does for OpenAI. The agent's `computer`
 * tool is sent as the `computerUse` tool (browser environment); each of Gemini's predefined
 * function calls (click_at, type_text_at, …, points on a 0–999 grid) comes back as a call of
 * that tool; the tool's result goes back as a functionResponse with the page's URL and the
 * screenshot, acknowledging a safety decision when the caller did.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
} from "@ai-sdk/provider";
import { postJson, refuseOtherUses } from "./computerUseHttp.js";

export interface GoogleComputerUseSettings {
  modelId: string;
  apiKey: string;
  baseURL: string | undefined;
  headers: Record<string, string> | undefined;
  /** The HTTP client (a service's guarded one); the global fetch when absent. */
  fetch?: typeof fetch;
}

/** What a Gemini computer-use call carries to the agent's `computer` tool (its input). */
export interface GoogleComputerCallInput {
  google: { name: string; args: Record<string, unknown> };
  /** The part as it came (with its thoughtSignature, id): echoed back unchanged. */
  raw?: Record<string, unknown>;
}

export function googleComputerUseModel(settings: GoogleComputerUseSettings): LanguageModelV3 {
  const base = (settings.baseURL ?? "https://generativelanguage.googleapis.com/v1beta").replace(
    /\/$/,
    "",
  );
  const url = `${base}/models/${settings.modelId}:generateContent`;
  return {
    specificationVersion: "v3",
    provider: "google.computer-use",
    modelId: settings.modelId,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
      refuseOtherUses(options, `google/${settings.modelId}`);
      const { system, contents } = toContents(options.prompt);
      const body = {
        ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
        contents,
        tools: [{ computerUse: { environment: "ENVIRONMENT_BROWSER" } }],
      };
      const json = await postJson(
        url,
        body,
        {
          "x-goog-api-key": settings.apiKey,
          ...settings.headers,
          ...options.headers,
        },
        options.abortSignal,
        settings.fetch,
      );
      return fromResponse(json as GenerateBody, body);
    },
    async doStream() {
      throw new Error("computer-use models are called without streaming");
    },
  };
}

interface GenerateBody {
  candidates?: {
    content?: {
      parts?: ({
        text?: string;
        functionCall?: { name: string; args?: Record<string, unknown> };
      } & Record<string, unknown>)[];
    };
    finishReason?: string;
  }[];
  usageMetadata?: {
    promptTokenCount?: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
    cachedContentTokenCount?: number;
  };
}

function fromResponse(json: GenerateBody, body: unknown): LanguageModelV3GenerateResult {
  const content: LanguageModelV3Content[] = [];
  const candidate = json.candidates?.[0];
  for (const [i, part] of (candidate?.content?.parts ?? []).entries()) {
    if (part.text) content.push({ type: "text", text: part.text });
    if (part.functionCall) {
      const input: GoogleComputerCallInput = {
        google: { name: part.functionCall.name, args: part.functionCall.args ?? {} },
        raw: part,
      };
      content.push({
        type: "tool-call",
        // Gemini's calls carry no id: one is made, and the name goes back with the response.
        toolCallId: `gemini_${Date.now().toString(36)}_${i}`,
        toolName: "computer",
        input: JSON.stringify(input),
      });
    }
  }
  const usage = json.usageMetadata ?? {};
  const calls = content.some((c) => c.type === "tool-call");
  const raw = candidate?.finishReason;
  const unified =
    raw === "MAX_TOKENS"
      ? "length"
      : raw === "SAFETY" ||
          raw === "RECITATION" ||
          raw === "BLOCKLIST" ||
          raw === "PROHIBITED_CONTENT"
        ? "content-filter"
        : raw && raw !== "STOP"
          ? "other"
          : calls
            ? "tool-calls"
            : "stop";
  return {
    content,
    finishReason: { unified, raw },
    usage: {
      inputTokens: {
        total: usage.promptTokenCount,
        noCache: undefined,
        cacheRead: usage.cachedContentTokenCount,
        cacheWrite: undefined,
      },
      outputTokens: {
        total: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
        text: usage.candidatesTokenCount,
        reasoning: usage.thoughtsTokenCount,
      },
    },
    request: { body },
    warnings: [],
  };
}

/** The AI SDK's prompt as Gemini contents (camelCase REST form). */
function toContents(prompt: LanguageModelV3Prompt): { system: string; contents: unknown[] } {
  const system: string[] = [];
  const contents: unknown[] = [];
  const names = new Map<string, string>();
  for (const message of prompt) {
    if (message.role === "system") system.push(message.content);
    else if (message.role === "user") {
      contents.push({
        role: "user",
        parts: message.content.map((part) =>
          part.type === "text"
            ? { text: part.text }
            : { inlineData: { mimeType: part.mediaType, data: base64(part.data) } },
        ),
      });
    } else if (message.role === "assistant") {
      const parts: unknown[] = [];
      for (const part of message.content) {
        if (part.type === "text" && part.text) parts.push({ text: part.text });
        else if (part.type === "tool-call") {
          const call = (
            typeof part.input === "string" ? JSON.parse(part.input) : part.input
          ) as GoogleComputerCallInput;
          names.set(part.toolCallId, call.google.name);
          parts.push(
            call.raw ?? { functionCall: { name: call.google.name, args: call.google.args } },
          );
        }
      }
      if (parts.length) contents.push({ role: "model", parts });
    } else if (message.role === "tool") {
      const parts: unknown[] = [];
      for (const part of message.content) {
        if (part.type !== "tool-result") continue;
        const output = part.output;
        const image =
          output.type === "content" ? output.value.find((v) => v.type === "image-data") : undefined;
        const meta = (part.providerOptions?.wayfarer ?? {}) as {
          url?: string;
          acknowledgedSafetyChecks?: unknown[];
        };
        const note =
          output.type === "content"
            ? output.value.find((v) => v.type === "text")
            : output.type === "text" || output.type === "error-text"
              ? { text: output.value }
              : undefined;
        parts.push({
          functionResponse: {
            name: names.get(part.toolCallId) ?? "computer",
            response: {
              url: meta.url ?? "",
              ...(note && "text" in note ? { result: note.text } : {}),
              ...(meta.acknowledgedSafetyChecks?.length ? { safety_acknowledgement: "true" } : {}),
            },
            ...(image && "data" in image
              ? { parts: [{ inlineData: { mimeType: image.mediaType, data: base64(image.data) } }] }
              : {}),
          },
        });
      }
      if (parts.length) contents.push({ role: "user", parts });
    }
  }
  return { system: system.join("\n\n"), contents };
}

function base64(data: unknown): string {
  if (typeof data === "string") return data.replace(/^data:[^,]*,/, "");
  if (data instanceof Uint8Array) return Buffer.from(data).toString("base64");
  return "";
}
