/**
 * OpenAI's Responses and Chat Completions APIs, answered from the request: `answer` reads what
 * the model was sent and returns the object the model "chooses". Streaming requests
 * (`stream: true`) get the same answer as server-sent events.
 */
import { HttpResponse, http, type RequestHandler } from "msw";
import { idOfLine, type ModelRequest, promptOf } from "./modelServer.js";

export type Answer = (request: ModelRequest) => unknown;
const OPENAI = "https://api.openai.com/v1";
const USAGE = { input: 120, output: 30, cached: 20, reasoning: 5 };

function toRequest(request: Request, body: Record<string, unknown>): ModelRequest {
  return { method: request.method, url: new URL(request.url), headers: request.headers, body };
}

function sse(events: unknown[]): HttpResponse<string> {
  const text = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`;
  return new HttpResponse(text, { headers: { "content-type": "text/event-stream" } });
}

/** POST {baseURL}/responses: the answer as the message's output_text, JSON-encoded. */
export function openaiResponses(
  answer: Answer,
  baseURL = OPENAI,
  /** The usage reported (default: the fixed OPENAI_USAGE), e.g. in proportion to the prompt. */
  usageFor?: (request: ModelRequest) => { input: number; output: number },
): RequestHandler {
  return http.post(`${baseURL}/responses`, async ({ request }) => {
    const body = (await request.json()) as Record<string, unknown>;
    const text = JSON.stringify(answer(toRequest(request, body)));
    const spent = usageFor?.(toRequest(request, body)) ?? USAGE;
    const usage = {
      input_tokens: spent.input,
      output_tokens: spent.output,
      total_tokens: spent.input + spent.output,
      input_tokens_details: { cached_tokens: USAGE.cached },
      output_tokens_details: { reasoning_tokens: USAGE.reasoning },
    };
    const message = {
      type: "message",
      id: "msg_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    };
    const response = {
      id: "resp_1",
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      model: String(body.model),
      status: "completed",
      output: [message],
      usage,
    };
    if (!body.stream) return HttpResponse.json(response);
    return sse([
      { type: "response.created", response: { ...response, status: "in_progress", output: [] } },
      { type: "response.output_item.added", output_index: 0, item: { ...message, content: [] } },
      {
        type: "response.output_text.delta",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta: text,
      },
      { type: "response.output_item.done", output_index: 0, item: message },
      { type: "response.completed", response },
    ]);
  });
}

/** POST {baseURL}/chat/completions: the answer as the assistant message, JSON-encoded. */
export function openaiChat(answer: Answer, baseURL = OPENAI): RequestHandler {
  return http.post(`${baseURL}/chat/completions`, async ({ request }) => {
    const body = (await request.json()) as Record<string, unknown>;
    const content = JSON.stringify(answer(toRequest(request, body)));
    const usage = {
      prompt_tokens: USAGE.input,
      completion_tokens: USAGE.output,
      total_tokens: USAGE.input + USAGE.output,
      prompt_tokens_details: { cached_tokens: USAGE.cached },
      completion_tokens_details: { reasoning_tokens: USAGE.reasoning },
    };
    const base = {
      id: "chatcmpl_1",
      created: Math.floor(Date.now() / 1000),
      model: String(body.model),
    };
    if (!body.stream) {
      return HttpResponse.json({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage,
      });
    }
    return sse([
      {
        ...base,
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { role: "assistant", content } }],
      },
      {
        ...base,
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
        usage,
      },
    ]);
  });
}

/** The token counts every answer of these handlers reports. */
export const OPENAI_USAGE = USAGE;

/**
 * act/observe answered with one element: the one on the outline line containing `needle`,
 * to be clicked (found in the prompt each time, never a fixed id).
 */
export function clickingLine(needle: string, baseURL = OPENAI): RequestHandler {
  return openaiResponses(
    (r) => ({
      elements: [
        {
          elementId: idOfLine(promptOf(r), needle),
          description: needle,
          method: "click",
          arguments: [],
        },
      ],
    }),
    baseURL,
  );
}
