/**
 * A cached agent run performed again on this machine's browser, with no model: each recorded
 * step in order, under the run's navigation-safety rule, each within its time. An element action
 * is done only on the element recorded (act's `expect`); the page tools are called again with
 * the input the model gave them. The first step that cannot be done stops the replay and says
 * why, so that the cache can heal it.
 */
import type { AgentReplayRequest, AgentReplayResult, AgentStep } from "../api/operations.js";
import { act } from "../handlers/act.js";
import { activePageOf, pageById } from "../handlers/pageSnapshot.js";
import type { AgentAction } from "../options.js";
import { readableMessage } from "../readableError.js";
import { type Deadline, withTimeout } from "../timeout.js";
import { type AgentDeps, guardRun, newRun } from "./agent.js";
import type { AgentRun } from "./tools/defineTool.js";
import { REPLAYED_TOOLS } from "./tools/index.js";

const STEP_TIMEOUT_MS = 30_000;

type StepOutcome = { action: AgentAction } | { stopped: { message: string; mismatch: boolean } };

export async function replayAgentSteps(
  deps: AgentDeps,
  request: AgentReplayRequest,
  signal?: AbortSignal,
): Promise<AgentReplayResult> {
  const context = deps.context();
  if (request.frameId !== undefined)
    context.setActivePage(await pageById(context, request.frameId));
  const stepTimeout = request.stepTimeout ?? STEP_TIMEOUT_MS;
  const run = newRun(
    {
      mode: "dom",
      model: undefined,
      executionModel: undefined,
      systemPrompt: undefined,
      stream: false,
    },
    deps,
    context,
    () => activePageOf(context),
    // An Action needs no model: nothing of a replay calls one.
    deps.models.scoped({ operation: "agent" }),
    { instruction: "replay", maxSteps: 1, toolTimeout: stepTimeout, variables: request.variables },
    { signal },
    { ...deps.typedVariables() },
    undefined,
  );
  const actions: AgentAction[] = [];
  const unguard = await guardRun(run);
  try {
    run.newTabs = await context.newTabs();
    for (const [i, step] of request.steps.entries()) {
      if (signal?.aborted) {
        return {
          performed: i,
          actions,
          stopped: { message: "Stopped by the caller.", mismatch: false },
        };
      }
      const started = Date.now();
      const outcome = await withTimeout(
        "agent replay",
        stepTimeout,
        `step ${i + 1} of the cached run (${step.tool})`,
        (deadline) => perform(step, run, deadline),
      ).catch(
        (error: unknown): StepOutcome => ({
          stopped: { message: readableMessage(error), mismatch: false },
        }),
      );
      const refused = run.refused.splice(0);
      if ("stopped" in outcome || refused.length) {
        const message =
          "stopped" in outcome
            ? outcome.stopped.message
            : `Navigation refused by the safety rule: ${refused.join("; ")}`;
        return {
          performed: i,
          actions,
          stopped: {
            message: deps.logger.redactor.text(message),
            mismatch: "stopped" in outcome && outcome.stopped.mismatch,
          },
        };
      }
      actions.push({ ...outcome.action, timeMs: Date.now() - started });
    }
    return { performed: request.steps.length, actions };
  } finally {
    await unguard?.();
  }
}

async function perform(step: AgentStep, run: AgentRun, deadline: Deadline): Promise<StepOutcome> {
  if (step.tool !== "act") {
    const output = await REPLAYED_TOOLS[step.tool].execute(step.input, run, deadline);
    return { action: { type: step.tool, taskCompleted: false, ...output.action } };
  }
  const result = await act(
    run.context,
    run.page(),
    step.action,
    { variables: run.variables },
    run.actSettings,
    deadline,
    { expect: step.identity },
  );
  if (!result.success) {
    return { stopped: { message: result.message, mismatch: result.mismatch === true } };
  }
  return {
    action: {
      type: "act",
      instruction: step.instruction,
      action: result.actionDescription,
      success: true,
      taskCompleted: false,
      pageUrl: run.page().url(),
    },
  };
}
