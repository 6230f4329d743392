/**
 * OpenAI's computer-use models (computer-use-preview) over the Responses API, which the AI SDK
 * has no binding for: an AI SDK LanguageModel that speaks that protocol over HTTP itself, so
 * that ModelClient keeps the keys, retries, redaction, usage and inference log as for any
 * model. The agent's `computer` tool is sent as the `computer_use_preview` tool; a
 * `computer_call` comes back as a call of that tool, with its pending safety checks; the
 * tool's result goes back as a `computer_call_output` carrying the screenshot and the checks
 * the caller acknowledged.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
} from "@ai-sdk/provider";
import type { SafetyCheck } from "../options.js";
import { postJson, refuseOtherUses } from "./computerUseHttp.js";

export interface OpenAIComputerUseSettings {
  modelId: string;
  apiKey: string;
  baseURL: string | undefined;
  headers: Record<string, string> | undefined;
  /** The HTTP client (a service's guarded one); the global fetch when absent. */
  fetch?: typeof fetch;
}

/** What a computer call carries to the agent's `computer` tool (its input). */
export interface OpenAIComputerCallInput {
  action: Record<string, unknown> & { type: string };
  safety_checks: SafetyCheck[];
  /** Kept to send the call back as it came (with the reasoning item that preceded it). */
  item_id: string;
  reasoning: unknown[];
}

/** A 1×1 transparent PNG: what stands for a screenshot cut from the conversation. */
const BLANK_PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** The display the screenshots show, passed per call as providerOptions.wayfarer.display. */
const DEFAULT_DISPLAY = { width: 1024, height: 768 };

export function openaiComputerUseModel(settings: OpenAIComputerUseSettings): LanguageModelV3 {
  const url = `${(settings.baseURL ?? "https://api.openai.com/v1").replace(/\/$/, "")}/responses`;
  return {
    specificationVersion: "v3",
    provider: "openai.computer-use",
    modelId: settings.modelId,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
      refuseOtherUses(options, `openai/${settings.modelId}`);
      const wayfarer = options.providerOptions?.wayfarer as
        | { display?: { width: number; height: number } }
        | undefined;
      const display = wayfarer?.display ?? DEFAULT_DISPLAY;
      const body = {
        model: settings.modelId,
        input: toInput(options.prompt),
        tools: [
          {
            type: "computer_use_preview",
            display_width: display.width,
            display_height: display.height,
            environment: "browser",
          },
        ],
        // The protocol requires it: older turns are dropped when the context fills up.
        truncation: "auto",
        reasoning: { summary: "concise" },
      };
      const json = await postJson(
        url,
        body,
        {
          authorization: `Bearer ${settings.apiKey}`,
          ...settings.headers,
          ...options.headers,
        },
        options.abortSignal,
        settings.fetch,
      );
      return fromResponse(json as ResponsesBody, body);
    },
    async doStream() {
      throw new Error("computer-use models are called without streaming");
    },
  };
}

interface ResponsesBody {
  id?: string;
  status?: string;
  incomplete_details?: { reason?: string };
  output?: Record<string, unknown>[];
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    input_tokens_details?: { cached_tokens?: number };
    output_tokens_details?: { reasoning_tokens?: number };
  };
}

function fromResponse(json: ResponsesBody, body: unknown): LanguageModelV3GenerateResult {
  const content: LanguageModelV3Content[] = [];
  let reasoning: unknown[] = [];
  for (const item of json.output ?? []) {
    if (item.type === "reasoning") reasoning.push(item);
    else if (item.type === "message") {
      const parts = (item.content ?? []) as { type: string; text?: string }[];
      const text = parts
        .filter((p) => p.type === "output_text")
        .map((p) => p.text ?? "")
        .join("");
      if (text) content.push({ type: "text", text });
    } else if (item.type === "computer_call") {
      const input: OpenAIComputerCallInput = {
        action: item.action as OpenAIComputerCallInput["action"],
        safety_checks: (item.pending_safety_checks ??
          []) as OpenAIComputerCallInput["safety_checks"],
        item_id: String(item.id),
        reasoning,
      };
      reasoning = [];
      content.push({
        type: "tool-call",
        toolCallId: String(item.call_id),
        toolName: "computer",
        input: JSON.stringify(input),
      });
    }
  }
  const usage = json.usage ?? {};
  const calls = content.some((c) => c.type === "tool-call");
  // An answer cut short is not a finished one: the agent's loop tells them apart by this.
  const reason = json.incomplete_details?.reason;
  const unified =
    json.status === "incomplete"
      ? reason === "content_filter"
        ? "content-filter"
        : reason === "max_output_tokens"
          ? "length"
          : "other"
      : calls
        ? "tool-calls"
        : "stop";
  return {
    content,
    finishReason: { unified, raw: reason ?? json.status },
    usage: {
      inputTokens: {
        total: usage.input_tokens,
        noCache: undefined,
        cacheRead: usage.input_tokens_details?.cached_tokens,
        cacheWrite: undefined,
      },
      outputTokens: {
        total: usage.output_tokens,
        text: undefined,
        reasoning: usage.output_tokens_details?.reasoning_tokens,
      },
    },
    request: { body },
    response: { id: json.id },
    warnings: [],
  };
}

/** The AI SDK's prompt as Responses API input items. */
function toInput(prompt: LanguageModelV3Prompt): unknown[] {
  const input: unknown[] = [];
  for (const message of prompt) {
    if (message.role === "system") {
      input.push({ role: "system", content: message.content });
    } else if (message.role === "user") {
      input.push({
        role: "user",
        content: message.content.map((part) =>
          part.type === "text"
            ? { type: "input_text", text: part.text }
            : { type: "input_image", image_url: dataUrl(part.data, part.mediaType) },
        ),
      });
    } else if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "text" && part.text) {
          input.push({ role: "assistant", content: [{ type: "output_text", text: part.text }] });
        } else if (part.type === "tool-call") {
          const call = (
            typeof part.input === "string" ? JSON.parse(part.input) : part.input
          ) as OpenAIComputerCallInput;
          input.push(...call.reasoning);
          input.push({
            type: "computer_call",
            id: call.item_id,
            call_id: part.toolCallId,
            action: call.action,
            pending_safety_checks: call.safety_checks,
            status: "completed",
          });
        }
      }
    } else if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type !== "tool-result") continue;
        const output = part.output;
        const image =
          output.type === "content" ? output.value.find((v) => v.type === "image-data") : undefined;
        const meta = part.providerOptions?.wayfarer as { url?: string } | undefined;
        const acknowledged = (
          part.providerOptions?.wayfarer as { acknowledgedSafetyChecks?: unknown } | undefined
        )?.acknowledgedSafetyChecks;
        input.push({
          type: "computer_call_output",
          call_id: part.toolCallId,
          ...(Array.isArray(acknowledged) && acknowledged.length
            ? { acknowledged_safety_checks: acknowledged }
            : {}),
          // The page's address lets the provider raise its irrelevant_domain check.
          ...(meta?.url ? { current_url: meta.url } : {}),
          output: {
            type: "computer_screenshot",
            // Older screenshots are cut from the conversation; the protocol still wants one.
            image_url: image && "data" in image ? dataUrl(image.data, image.mediaType) : BLANK_PNG,
          },
        });
      }
    }
  }
  return input;
}

function dataUrl(data: unknown, mediaType: string | undefined): string {
  if (data instanceof URL) return data.href;
  if (typeof data === "string") {
    return data.startsWith("data:") || /^https?:/.test(data)
      ? data
      : `data:${mediaType ?? "image/png"};base64,${data}`;
  }
  const bytes = data instanceof Uint8Array ? data : new Uint8Array();
  return `data:${mediaType ?? "image/png"};base64,${Buffer.from(bytes).toString("base64")}`;
}
