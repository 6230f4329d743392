/**
 * The agent's loop: the model picks tools, the tools run, their results go back, until the
 * model calls done, the run reaches maxSteps, or the caller's signal stops it. A tool that
 * fails or runs out of time hands its error to the model, which may try something else; a
 * model that cannot be reached ends the run with its error.
 */

import type { AgentEvent } from "../api/operations.js";
import type { Redactor } from "../log.js";
import type { Usage } from "../metrics.js";
import type { ModelConfiguration } from "../model/config.js";
import type { Models, ToolCallRequest } from "../model/modelClient.js";
import type { AgentAction, AgentResult, AgentUsage, Variables } from "../options.js";
import { readableMessage, surface } from "../readableError.js";
import { withTimeout } from "../timeout.js";
import { hideVariables } from "../variables.js";
import { Conversation, type ToolResultEntry } from "./conversation.js";
import { StaleIdError } from "./elementById.js";
import { FailureStreak, Repeats, stepNote, toolsAt } from "./guardrails.js";
import type { Recording } from "./recording.js";
import type { AgentRun, AgentTool, ToolOutput } from "./tools/defineTool.js";

/** A single model turn of the agent may take this long before the run fails. */
const MODEL_STEP_TIMEOUT_MS = 90_000;

export interface LoopSettings {
  task: string;
  /** The screen a computer-use model starts from (cua). */
  screenshot?: Buffer;
  /** cua: the screen the provider's computer tool is declared for, each step. */
  computerScreen?: () => Promise<{ width: number; height: number }>;
  system: string;
  maxSteps: number;
  toolTimeout: number;
  signal: AbortSignal | undefined;
  model: ModelConfiguration | undefined;
  models: Models;
  tools: AgentTool[];
  run: AgentRun;
  variables: Variables | undefined;
  redactor: Redactor;
  emit: (event: AgentEvent) => void;
  /** With `shouldCache`: the tool calls that changed the page, as steps a replay repeats. */
  recording?: Recording;
  /** The page as the loop check compares it; undefined when it cannot be read. */
  pageState?: () => Promise<string | undefined>;
  /** Tool calls failing in a row that end the run. */
  maxConsecutiveFailures: number;
}

type StopReason = "done" | "text" | "maxSteps" | "aborted" | "loop" | "failures" | (string & {});

export async function runLoop(s: LoopSettings): Promise<AgentResult> {
  const conversation = new Conversation(s.task, s.screenshot);
  const actions: AgentAction[] = [];
  const total = new UsageSum();
  const byName = new Map(s.tools.map((t) => [t.name, t]));
  const clean = <T>(value: T): T => scrub(value, s.variables, s.redactor);
  let finish: NonNullable<ToolOutput["finish"]> | undefined;
  let stoppedBy: StopReason = "maxSteps";
  let steps = 0;
  const repeats = new Repeats(s.pageState ?? (async () => undefined));
  const streak = new FailureStreak(s.maxConsecutiveFailures);

  while (steps < s.maxSteps) {
    if (s.signal?.aborted) {
      stoppedBy = "aborted";
      break;
    }
    const step = ++steps;
    s.emit({ type: "step-start", step });
    const note = stepNote(step, s.maxSteps, byName.has("done"));
    if (note) conversation.addNote(note);
    const offered = toolsAt(s.tools, step, s.maxSteps);
    const spent = new UsageSum();
    let answer: Awaited<ReturnType<Models["converse"]>>;
    try {
      answer = await withTimeout(
        "agent",
        MODEL_STEP_TIMEOUT_MS,
        `the model to choose step ${step}`,
        async (deadline) =>
          s.models.converse({
            operation: "agent",
            system: s.system,
            messages: conversation.messages,
            tools: offered,
            model: s.model,
            computer: s.computerScreen ? await s.computerScreen() : undefined,
            signal: joined(deadline.signal, s.signal),
            onUsage: (u) => spent.add(u),
          }),
      );
    } catch (error) {
      total.addSum(spent);
      // Stopped by the caller while the model was thinking: a clean stop, not a failure.
      if (s.signal?.aborted) {
        stoppedBy = "aborted";
        s.emit({ type: "step-finish", step, usage: spent.asAgentUsage() });
        break;
      }
      throw error;
    }
    const reasoning = answer.text.trim() ? clean(answer.text.trim()) : undefined;
    if (reasoning) s.emit({ type: "text", step, text: reasoning });
    conversation.addAssistant(answer.messages);
    if (!answer.toolCalls.length) {
      // A model that answers in words instead of calling done has finished all the same; one
      // that said nothing, or was cut off, has not succeeded.
      const cut = answer.finishReason === "length" || answer.finishReason === "content-filter";
      finish =
        reasoning && !cut
          ? { success: true, message: reasoning }
          : {
              success: false,
              message: `The model ended its turn without calling a tool${reasoning ? "" : " or saying anything"} (finish reason: ${answer.finishReason})${reasoning ? `: ${reasoning}` : "."}`,
            };
      actions.push({ type: "message", reasoning, taskCompleted: finish.success, timeMs: 0 });
      stoppedBy = "text";
      total.addSum(spent);
      s.emit({ type: "step-finish", step, usage: spent.asAgentUsage() });
      break;
    }
    const results: ToolResultEntry[] = [];
    // The ids of this answer name elements of the outline the model had when it answered.
    s.run.seen.forIds = s.run.seen.outline;
    for (const call of answer.toolCalls) {
      if (finish || s.signal?.aborted) {
        // Not run; the conversation still needs an answer to each call.
        const why =
          finish && finish.stoppedBy === undefined
            ? "the task was already finished"
            : "the run was stopped";
        results.push({ ...call, text: `Not run: ${why}.`, error: true });
        continue;
      }
      if (byName.has(call.toolName) && !offered.some((t) => t.name === call.toolName)) {
        const only = offered.map((t) => t.name).join(", ");
        results.push({ ...call, text: `Not run: this step offers only ${only}.`, error: true });
        continue;
      }
      const shown = byName.get(call.toolName)?.describeInput?.(call.input) ?? call.input;
      s.emit({
        type: "tool-call",
        step,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: clean(shown),
      });
      // Calls whose effect may show only in pixels (a canvas) are not checked for loops.
      const checked = byName.get(call.toolName)?.pixels !== true;
      const readOnly = byName.get(call.toolName)?.readOnly === true;
      // The call as the loop check tells calls apart: its input, and what an id in it names.
      const loopKey = byName.get(call.toolName)?.loopKey?.(call.input, s.run);
      const keyed = loopKey ? { ...call, input: [call.input, loopKey] } : call;
      const before = checked ? await repeats.before(keyed, readOnly) : undefined;
      const started = Date.now();
      const outcome = await runTool(call, byName, s, (u) => spent.add(u));
      const timeMs = Date.now() - started;
      const repeated =
        outcome.ok && outcome.output.finish
          ? undefined
          : !checked
            ? repeats.skipped()
            : readOnly
              ? repeats.afterReading(keyed, outcome.ok && outcome.output.sawChange === true)
              : await repeats.after(keyed, before);
      if (outcome.ok && outcome.output.replay !== undefined)
        s.recording?.add(outcome.output.replay);
      else if (!outcome.ok && outcome.ran && byName.get(call.toolName)?.unreplayableOnError)
        s.recording?.add(null);
      const nudge = repeated && "nudge" in repeated ? `\n${repeated.nudge}` : "";
      const text = clean(outcome.ok ? outcome.output.text : outcome.error) + nudge;
      const failed = outcome.ok ? outcome.output.failed : outcome.error;
      results.push({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        text,
        image: outcome.ok ? outcome.output.image : undefined,
        imageInResult: outcome.ok && outcome.output.imageInResult,
        // The page's URL may carry a typed value (a submitted form's query).
        resultMeta: outcome.ok ? clean(outcome.output.resultMeta) : undefined,
        error: !outcome.ok,
        perishable: outcome.ok && outcome.output.perishable,
        shortened: outcome.ok ? clean(outcome.output.shortened) : undefined,
      });
      const thought = call.toolName === "think" ? undefined : reasoning;
      actions.push(
        withTextAction(
          clean({
            ...(isRecord(shown) ? shown : {}),
            type: call.toolName,
            ...(thought ? { reasoning: thought } : {}),
            taskCompleted: false,
            ...(outcome.ok ? outcome.output.action : {}),
            ...(failed ? { error: failed } : {}),
            timeMs,
          }),
        ),
      );
      s.emit({
        type: "tool-result",
        step,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: text,
        error: failed !== undefined,
        timeMs,
      });
      if (outcome.ok && outcome.output.finish) {
        finish = clean(outcome.output.finish);
        stoppedBy = finish.stoppedBy ?? "done";
        continue;
      }
      // An act that did not manage its action fails as much as one that threw.
      const unsuccessful =
        outcome.ok && outcome.output.action?.success === false ? text : undefined;
      const streakEnd = streak.record(call.toolName, failed ?? unsuccessful);
      const guard =
        repeated && "stop" in repeated
          ? { stoppedBy: "loop", message: repeated.stop }
          : streakEnd
            ? { stoppedBy: "failures", message: clean(streakEnd) }
            : undefined;
      if (guard) {
        finish = { success: false, completed: false, ...guard };
        stoppedBy = guard.stoppedBy;
      }
    }
    conversation.addToolResults(results);
    total.addSum(spent);
    s.emit({ type: "step-finish", step, usage: spent.asAgentUsage() });
    if (finish) break;
  }

  // Stopped by the caller during the last allowed step: that, not maxSteps, ended the run.
  if (!finish && stoppedBy === "maxSteps" && s.signal?.aborted) stoppedBy = "aborted";
  return {
    success: finish?.success ?? false,
    completed: finish ? (finish.completed ?? true) : false,
    message: finish?.message ?? stopMessage(stoppedBy, s),
    actions,
    metadata: { ...finish?.metadata, steps, stoppedBy },
    usage: total.asAgentUsage(),
  };
}

/** `ran`: the tool was started (not an unknown tool or an input it refused). */
type Outcome = { ok: true; output: ToolOutput } | { ok: false; error: string; ran?: boolean };

async function runTool(
  call: ToolCallRequest,
  byName: Map<string, AgentTool>,
  s: LoopSettings,
  onUsage: (usage: Usage) => void,
): Promise<Outcome> {
  const tool = byName.get(call.toolName);
  if (!tool) {
    return {
      ok: false,
      error: `There is no tool "${call.toolName}". Tools: ${[...byName.keys()].join(", ")}.`,
    };
  }
  if (call.invalid)
    return { ok: false, error: `Invalid input for ${call.toolName}: ${call.invalid}` };
  const input = tool.inputSchema.safeParse(call.input);
  if (!input.success) {
    const issues = input.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`);
    return { ok: false, error: `Invalid input for ${call.toolName}: ${issues.join("; ")}` };
  }
  s.run.refused.length = 0;
  try {
    // The caller's signal does not cut a tool short: the run stops after it, between steps.
    const output = await withTimeout(
      `agent tool ${call.toolName}`,
      s.toolTimeout,
      `the ${call.toolName} tool to finish`,
      (deadline) =>
        tool.execute(input.data, { ...s.run, actSettings: withUsage(s.run, onUsage) }, deadline),
    );
    const refused = s.run.refused.splice(0);
    if (refused.length) {
      output.text += `\nNavigation refused by the safety rule: ${refused.join("; ")}`;
    }
    return { ok: true, output };
  } catch (thrown) {
    const refused = s.run.refused.splice(0);
    // One readable line for the model and the result; Playwright's whole text to a debug line.
    const error = surface(call.toolName, thrown, (detail) =>
      s.run.logger.debug("agent", `tool ${call.toolName} failed`, {
        detail: scrub(detail, s.variables, s.redactor),
      }),
    );
    const message =
      (error instanceof Error ? `${error.name}: ` : "") +
      readableMessage(error) +
      (refused.length ? ` Navigation refused by the safety rule: ${refused.join("; ")}` : "");
    s.run.logger.info("agent", `tool ${call.toolName} failed; the model is told`, {
      error: scrub(message, s.variables, s.redactor),
    });
    // A stale id did nothing: the run stays replayable.
    return { ok: false, error: message, ran: !(thrown instanceof StaleIdError) };
  }
}

/** The tools' own model calls (act, extract) count in this step's usage too (and a replay's heals in its). */
export function withUsage(run: AgentRun, onUsage: (usage: Usage) => void): AgentRun["actSettings"] {
  const models = run.actSettings.models;
  return {
    ...run.actSettings,
    models: {
      generate: (call) => models.generate({ ...call, onUsage: chain(call.onUsage, onUsage) }),
      converse: (call) => models.converse({ ...call, onUsage: chain(call.onUsage, onUsage) }),
    },
  };
}

function chain(a: ((u: Usage) => void) | undefined, b: (u: Usage) => void) {
  return (u: Usage) => {
    a?.(u);
    b(u);
  };
}

function stopMessage(reason: StopReason, s: LoopSettings): string {
  if (reason === "aborted") return "Stopped by the caller before the task was done.";
  return `Stopped after maxSteps (${s.maxSteps}) steps before the task was done.`;
}

function joined(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  return b ? AbortSignal.any([a, b]) : a;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Nothing secret leaves a run: variables' values become their %name%, keys are redacted. */
export function scrub<T>(value: T, variables: Variables | undefined, redactor: Redactor): T {
  const hide = (v: unknown): unknown => {
    if (typeof v === "string") return hideVariables(v, variables);
    if (Array.isArray(v)) return v.map(hide);
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hide(x)]));
    return v;
  };
  return redactor.value(hide(value)) as T;
}

class UsageSum {
  private sum: Usage = {
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    cachedInputTokens: 0,
    inferenceTimeMs: 0,
  };

  add(u: Usage): void {
    this.sum = {
      promptTokens: this.sum.promptTokens + u.promptTokens,
      completionTokens: this.sum.completionTokens + u.completionTokens,
      reasoningTokens: this.sum.reasoningTokens + u.reasoningTokens,
      cachedInputTokens: this.sum.cachedInputTokens + u.cachedInputTokens,
      inferenceTimeMs: this.sum.inferenceTimeMs + u.inferenceTimeMs,
    };
  }

  addSum(other: UsageSum): void {
    this.add(other.sum);
  }

  asAgentUsage(): AgentUsage {
    return {
      input_tokens: this.sum.promptTokens,
      output_tokens: this.sum.completionTokens,
      inference_time_ms: this.sum.inferenceTimeMs,
      reasoning_tokens: this.sum.reasoningTokens,
      cached_input_tokens: this.sum.cachedInputTokens,
    };
  }
}

/**
 * An action's `action` is text (AgentAction's type): a computer-use input object left there
 * (a step that stopped before acting) is written as its JSON.
 */
function withTextAction<T extends Record<string, unknown>>(entry: T): T {
  const { action } = entry;
  return action === undefined || typeof action === "string"
    ? entry
    : { ...entry, action: JSON.stringify(action) };
}
