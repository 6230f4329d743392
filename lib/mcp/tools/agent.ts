import { z } from "zod";
import type { AgentEvent } from "../../api/operations.js";
import { activePageOf } from "../../handlers/pageSnapshot.js";
import type { AgentResult } from "../../options.js";
import { textAnswer } from "../results.js";
import { checkNamedHere } from "../variables.js";
import type { McpTool, ToolCall } from "./index.js";

const inputSchema = z.object({
  task: z
    .string()
    .trim()
    .min(1)
    .describe(
      'The whole task, in words: "find the price of oolong tea"; %name% for a variable of the server',
    ),
  maxSteps: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe("The most model steps it may take (default: the server's setting)"),
});

/** An action of the result in one short line: its tool and what it did. */
function lineOf(action: AgentResult["actions"][number], i: number): string {
  const what = String(action.action ?? action.instruction ?? action.reasoning ?? "");
  const short = what.length > 100 ? `${what.slice(0, 99)}…` : what;
  return `${i + 1}. ${action.type}${short ? `: ${short}` : ""}${action.error ? " (failed)" : ""}`;
}

/**
 * The run's events as MCP progress: a step's start, then each tool it calls. Each tool call
 * moves halfway to the next step, so the figure always grows, as the protocol asks.
 */
function progressOf(call: ToolCall, maxSteps: number): (event: AgentEvent) => void {
  let done = 0;
  return (event) => {
    if (event.type === "step-start") {
      done = event.step - 1;
      call.progress(done, maxSteps, `Step ${event.step} of at most ${maxSteps}`);
    } else if (event.type === "tool-call") {
      done += (event.step - done) / 2;
      call.progress(done, maxSteps, `Step ${event.step}: ${event.toolName}`);
    }
  };
}

export default {
  name: "agent",
  title: "Do a task",
  description:
    "Hand a whole task to the server's own agent, which reads and acts step by step until it is done; answers with its result and its steps. Progress comes as notifications. Long: prefer the other tools for a few steps.",
  inputSchema,
  needsModel: true,
  annotations: { openWorldHint: true },
  async handle({ task, maxSteps }, call) {
    const { context, operations } = call.browser;
    const steps = maxSteps ?? call.options.agentMaxSteps;
    const page = activePageOf(context);
    // A run may type its variables on the origin it starts on: only those of this page go.
    checkNamedHere(task, call.options.variables, page.url());
    const { result } = await operations.agentExecute(
      {
        agentConfig: { mode: "dom" },
        executeOptions: {
          instruction: task,
          maxSteps: steps,
          toolTimeout: call.options.toolTimeoutMs,
          variables: call.variablesAt(page.url()),
        },
        frameId: await page.frameId(),
      },
      { signal: call.signal, onEvent: progressOf(call, steps) },
    );
    // The run moved the page on: the session's ids are checked element by element when used.
    const head = `${result.success ? "Done" : "Not done"}: ${result.message}`;
    const how = `(${result.metadata?.steps ?? result.actions.length} steps; stopped by ${result.metadata?.stoppedBy ?? "the end"}; the page is now ${activePageOf(context).url()})`;
    const answer = textAnswer(`${head}\n${how}\n${result.actions.map(lineOf).join("\n")}`);
    return result.success ? answer : { ...answer, isError: true };
  },
} satisfies McpTool<typeof inputSchema>;
