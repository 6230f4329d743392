/**
 * The agent's model, scripted at OpenAI's Responses API or Anthropic's Messages API: a request
 * that offers the agent's tools is an agent step, and `step` reads the conversation so far (the task, each tool called and what it
 * returned) to decide the next tool calls, as a real model would. Requests without tools (the
 * act/extract calls the agent's tools make) pass on to the next handler.
 */
import { HttpResponse, http, type RequestHandler } from "msw";
import { ANTHROPIC_USAGE } from "./anthropic.js";
import type { ModelRequest } from "./modelServer.js";
import { OPENAI_USAGE } from "./openai.js";

export interface ToolUse {
  name: string;
  input: Record<string, unknown>;
  /** What the tool returned (its error text when it failed); undefined for the latest calls. */
  output?: string;
}

export interface AgentTurn {
  /** The first user message: the task and the page the run starts on. */
  task: string;
  system: string;
  /** Tool calls so far, oldest first, with their outputs. */
  history: ToolUse[];
  /** The names of the tools offered. */
  tools: string[];
  request: ModelRequest;
}

export interface StepAnswer {
  text?: string;
  calls: { name: string; input: Record<string, unknown> }[];
}

export type StepScript = (turn: AgentTurn) => StepAnswer;

const OPENAI = "https://api.openai.com/v1";

export function call(name: string, input: Record<string, unknown> = {}) {
  return { name, input };
}

/** The latest output of a tool, or undefined when it was never called. */
export function lastOutput(turn: AgentTurn, name: string): string | undefined {
  return turn.history.filter((h) => h.name === name).at(-1)?.output;
}

export function readAgentTurn(request: ModelRequest): AgentTurn {
  if (Array.isArray(request.body.messages)) return readAnthropicTurn(request);
  const items = (request.body.input ?? []) as Record<string, unknown>[];
  const history: ToolUse[] = [];
  const byId = new Map<string, ToolUse>();
  let task = "";
  let system = "";
  for (const item of items) {
    if (item.role === "system" || item.role === "developer") system = textOf(item.content);
    else if (item.role === "user" && !task) task = textOf(item.content);
    else if (item.type === "function_call") {
      const use: ToolUse = {
        name: String(item.name),
        input: JSON.parse(String(item.arguments || "{}")) as Record<string, unknown>,
      };
      history.push(use);
      byId.set(String(item.call_id), use);
    } else if (item.type === "function_call_output") {
      const use = byId.get(String(item.call_id));
      if (use) use.output = textOf(item.output);
    }
  }
  const tools = ((request.body.tools ?? []) as { name?: string }[]).map((t) => String(t.name));
  return { task, system, history, tools, request };
}

function readAnthropicTurn(request: ModelRequest): AgentTurn {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const history: ToolUse[] = [];
  const byId = new Map<string, ToolUse>();
  let task = "";
  for (const m of messages) {
    const blocks = Array.isArray(m.content)
      ? (m.content as Record<string, unknown>[])
      : [{ type: "text", text: m.content }];
    for (const b of blocks) {
      if (b.type === "text" && m.role === "user" && !task) task = String(b.text);
      if (b.type === "tool_use") {
        const use: ToolUse = { name: String(b.name), input: b.input as Record<string, unknown> };
        history.push(use);
        byId.set(String(b.id), use);
      }
      if (b.type === "tool_result") {
        const use = byId.get(String(b.tool_use_id));
        if (use) use.output = textOf(b.content);
      }
    }
  }
  const tools = ((request.body.tools ?? []) as { name?: string }[]).map((t) => String(t.name));
  return { task, system: textOf(request.body.system), history, tools, request };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((c) => (typeof c === "object" && c && "text" in c ? String(c.text) : ""))
      .join("\n");
  }
  return "";
}

/** The turn a request carries, when its tools make it an agent step (its body read from a clone). */
async function agentTurnOf(
  request: Request,
  isStep: (tools: string[]) => boolean,
): Promise<AgentTurn | undefined> {
  const body = (await request.clone().json()) as Record<string, unknown>;
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: string }[]) : [];
  if (!isStep(tools.map((t) => String(t.name)))) return undefined;
  return readAgentTurn({
    method: request.method,
    url: new URL(request.url),
    headers: request.headers,
    body,
  });
}

export function openaiAgent(step: StepScript, baseURL = OPENAI): RequestHandler {
  let n = 0;
  return http.post(`${baseURL}/responses`, async ({ request }) => {
    const turn = await agentTurnOf(request, (tools) => tools.length > 0);
    if (!turn) return undefined;
    const answer = step(turn);
    const body = turn.request.body;
    const output: unknown[] = [];
    if (answer.text) {
      output.push({
        type: "message",
        id: `msg_${++n}`,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: answer.text, annotations: [] }],
      });
    }
    for (const c of answer.calls) {
      const id = ++n;
      output.push({
        type: "function_call",
        id: `fc_${id}`,
        call_id: `call_${id}`,
        name: c.name,
        arguments: JSON.stringify(c.input),
        status: "completed",
      });
    }
    return HttpResponse.json({
      id: `resp_${n}`,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      model: String(body.model),
      status: "completed",
      output,
      usage: {
        input_tokens: OPENAI_USAGE.input,
        output_tokens: OPENAI_USAGE.output,
        total_tokens: OPENAI_USAGE.input + OPENAI_USAGE.output,
        input_tokens_details: { cached_tokens: OPENAI_USAGE.cached },
        output_tokens_details: { reasoning_tokens: OPENAI_USAGE.reasoning },
      },
    });
  });
}

const ANTHROPIC = "https://api.anthropic.com/v1";

/** The same, for Anthropic: requests whose tools are only `json` (structured output) pass on. */
export function anthropicAgent(step: StepScript, baseURL = ANTHROPIC): RequestHandler {
  let n = 0;
  return http.post(`${baseURL}/messages`, async ({ request }) => {
    // Structured output offers only the `json` tool: not an agent step.
    const turn = await agentTurnOf(request, (tools) => tools.some((t) => t !== "json"));
    if (!turn) return undefined;
    const answer = step(turn);
    const body = turn.request.body;
    const content: unknown[] = answer.text ? [{ type: "text", text: answer.text }] : [];
    for (const c of answer.calls) {
      content.push({ type: "tool_use", id: `toolu_${++n}`, name: c.name, input: c.input });
    }
    return HttpResponse.json({
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: String(body.model),
      content,
      stop_reason: answer.calls.length ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: ANTHROPIC_USAGE.input, output_tokens: ANTHROPIC_USAGE.output },
    });
  });
}
