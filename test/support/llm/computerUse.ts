/**
 * Computer-use models scripted at their HTTP boundary: OpenAI's Responses API with the
 * `computer_use_preview` tool, and Anthropic's Messages API with its computer tool. The script
 * sees the latest screenshot the request carries (decoded) and answers with the next action,
 * or with words to finish.
 */
import { HttpResponse, http, type RequestHandler } from "msw";
import { type Image, latestImageIn } from "../png.js";
import { ANTHROPIC_USAGE } from "./anthropic.js";
import { asModelRequest, type ModelRequest } from "./modelServer.js";
import { OPENAI_USAGE } from "./openai.js";

export interface ScreenTurn {
  /** The latest screenshot in the request. */
  screen: Image;
  /** How many actions the model asked for before this turn. */
  actionsSoFar: number;
  request: ModelRequest;
}

export type ScreenAnswer =
  | {
      action: Record<string, unknown>;
      safetyChecks?: { id: string; code: string; message: string }[];
    }
  | { text: string; finishReason?: string };

export function openaiComputerUse(step: (turn: ScreenTurn) => ScreenAnswer): RequestHandler {
  let n = 0;
  return http.post("https://api.openai.com/v1/responses", async ({ request }) => {
    const req = await asModelRequest(request);
    const input = (req.body.input ?? []) as { type?: string }[];
    const answer = step({
      screen: latestImageIn(req.body)!,
      actionsSoFar: input.filter((i) => i.type === "computer_call").length,
      request: req,
    });
    const id = ++n;
    const output =
      "text" in answer
        ? [
            {
              type: "message",
              id: `msg_${id}`,
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: answer.text, annotations: [] }],
            },
          ]
        : [
            {
              type: "reasoning",
              id: `rs_${id}`,
              summary: [{ type: "summary_text", text: "looking" }],
            },
            {
              type: "computer_call",
              id: `cu_${id}`,
              call_id: `call_${id}`,
              action: answer.action,
              pending_safety_checks: answer.safetyChecks ?? [],
              status: "completed",
            },
          ];
    return HttpResponse.json({
      id: `resp_${id}`,
      object: "response",
      model: String(req.body.model),
      status: "completed",
      output,
      usage: {
        input_tokens: OPENAI_USAGE.input,
        output_tokens: OPENAI_USAGE.output,
        input_tokens_details: { cached_tokens: OPENAI_USAGE.cached },
        output_tokens_details: { reasoning_tokens: OPENAI_USAGE.reasoning },
      },
    });
  });
}

export function anthropicComputerUse(step: (turn: ScreenTurn) => ScreenAnswer): RequestHandler {
  let n = 0;
  return http.post("https://api.anthropic.com/v1/messages", async ({ request }) => {
    const req = await asModelRequest(request);
    const messages = (req.body.messages ?? []) as { content: unknown }[];
    const actionsSoFar = messages
      .flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string }[]) : []))
      .filter((c) => c.type === "tool_use").length;
    const answer = step({ screen: latestImageIn(req.body)!, actionsSoFar, request: req });
    const id = ++n;
    const content =
      "text" in answer
        ? [{ type: "text", text: answer.text }]
        : [{ type: "tool_use", id: `toolu_${id}`, name: "computer", input: answer.action }];
    return HttpResponse.json({
      id: `msg_${id}`,
      type: "message",
      role: "assistant",
      model: String(req.body.model),
      content,
      stop_reason: "text" in answer ? "end_turn" : "tool_use",
      stop_sequence: null,
      usage: { input_tokens: ANTHROPIC_USAGE.input, output_tokens: ANTHROPIC_USAGE.output },
    });
  });
}

const GEMINI = "https://generativelanguage.googleapis.com/v1beta";

/** Gemini's computer use: `action` is `{ name, args }` of its predefined functions (0–999 grid). */
export function googleComputerUse(
  model: string,
  step: (turn: ScreenTurn) => ScreenAnswer,
): RequestHandler {
  return http.post(`${GEMINI}/models/${model}:generateContent`, async ({ request }) => {
    const req = await asModelRequest(request);
    const contents = (req.body.contents ?? []) as { parts?: { functionCall?: unknown }[] }[];
    const actionsSoFar = contents
      .flatMap((c) => c.parts ?? [])
      .filter((p) => p.functionCall).length;
    const answer = step({ screen: latestImageIn(req.body)!, actionsSoFar, request: req });
    const parts =
      "text" in answer
        ? [{ text: answer.text }]
        : [{ functionCall: { name: String(answer.action.name), args: answer.action.args } }];
    const finishReason = "text" in answer ? (answer.finishReason ?? "STOP") : "STOP";
    return HttpResponse.json({
      candidates: [{ content: { role: "model", parts }, finishReason }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, thoughtsTokenCount: 5 },
    });
  });
}
