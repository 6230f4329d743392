/**
 * Anthropic's Messages API, answered from the request. A structured answer goes back the way
 * the request asked for it: as the `json` tool's input when the request offers that tool, else
 * as JSON text. Streaming requests get the same answer as server-sent events.
 */
import { HttpResponse, http, type RequestHandler } from "msw";
import type { ModelRequest } from "./modelServer.js";
import type { Answer } from "./openai.js";

const ANTHROPIC = "https://api.anthropic.com/v1";
const USAGE = { input: 110, output: 25, cacheRead: 10 };

/** POST {baseURL}/messages. */
export function anthropicMessages(answer: Answer, baseURL = ANTHROPIC): RequestHandler {
  return http.post(`${baseURL}/messages`, async ({ request }) => {
    const body = (await request.json()) as Record<string, unknown>;
    const req: ModelRequest = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body,
    };
    const value = answer(req);
    const tools = (body.tools as { name?: string }[] | undefined) ?? [];
    const asTool = tools.some((t) => t.name === "json");
    const block = asTool
      ? { type: "tool_use", id: "toolu_1", name: "json", input: value }
      : { type: "text", text: JSON.stringify(value) };
    const usage = {
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
      cache_read_input_tokens: USAGE.cacheRead,
    };
    const message = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: String(body.model),
      content: [block],
      stop_reason: asTool ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage,
    };
    if (!body.stream) return HttpResponse.json(message);
    const delta = asTool
      ? { type: "input_json_delta", partial_json: JSON.stringify(value) }
      : { type: "text_delta", text: JSON.stringify(value) };
    const start = asTool ? { ...block, input: {} } : { type: "text", text: "" };
    const events = [
      [
        "message_start",
        { type: "message_start", message: { ...message, content: [], stop_reason: null } },
      ],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: start }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      [
        "message_delta",
        {
          type: "message_delta",
          delta: { stop_reason: message.stop_reason, stop_sequence: null },
          usage: { output_tokens: USAGE.output },
        },
      ],
      ["message_stop", { type: "message_stop" }],
    ] as const;
    const text = events
      .map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
      .join("");
    return new HttpResponse(text, { headers: { "content-type": "text/event-stream" } });
  });
}

export const ANTHROPIC_USAGE = USAGE;
