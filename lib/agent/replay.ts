/**
 * A cached agent run performed again on this machine's browser: each recorded step in order,
 * under the run's navigation-safety rule, each within its time, with no model unless a step must
 * heal. An element action is done only on the element recorded (act's `expect`); keys only where
 * the focus was; the page tools are called again with the input the model gave them. With
 * `heal`, an element that is missing or another is asked for again in the words recorded with
 * it (one act call, under the same rule). The first step that cannot be done stops the replay
 * and says why; nothing of it names a variable's value.
 */
import type {
  AgentReplayRequest,
  AgentReplayResult,
  AgentStep,
  ElementIdentity,
} from "../api/operations.js";
import { focusedIdentity, sameIdentity } from "../browser/elementIdentity.js";
import { MissingLLMConfigurationError } from "../errors.js";
import { act } from "../handlers/act.js";
import { activePageOf, pageById } from "../handlers/pageSnapshot.js";
import type { AgentAction, AgentUsage } from "../options.js";
import { readableMessage } from "../readableError.js";
import { networkIdle, turnOf } from "../snapshot/settle.js";
import { type Deadline, sleep, withTimeout } from "../timeout.js";
import { hideIdentity } from "../variables.js";
import { type AgentDeps, guardRun, newRun } from "./agent.js";
import { scrub, withUsage } from "./loop.js";
import type { AgentRun } from "./tools/defineTool.js";
import { REPLAYED_TOOLS } from "./tools/index.js";

const STEP_TIMEOUT_MS = 30_000;
/** How long keys wait for the focus to be where it was recorded, and how often they look. */
const FOCUS_WAIT_MS = 1_000;
const FOCUS_POLL_MS = 50;

type StepOutcome =
  | { action: AgentAction; healed?: AgentStep }
  | { stopped: { message: string; mismatch: boolean } };

export async function replayAgentSteps(
  deps: AgentDeps,
  request: AgentReplayRequest,
  signal?: AbortSignal,
): Promise<AgentReplayResult> {
  const context = deps.context();
  if (request.frameId !== undefined)
    context.setActivePage(await pageById(context, request.frameId));
  const stepTimeout = request.stepTimeout ?? STEP_TIMEOUT_MS;
  const model = request.model;
  const run = newRun(
    { mode: "dom", model, executionModel: model, systemPrompt: undefined, stream: false },
    deps,
    context,
    () => activePageOf(context),
    deps.models.scoped({ operation: "agent" }),
    { instruction: "replay", maxSteps: 1, toolTimeout: stepTimeout, variables: request.variables },
    { signal },
    { ...deps.typedVariables() },
    undefined,
  );
  const usage: AgentUsage = { input_tokens: 0, output_tokens: 0, inference_time_ms: 0 };
  run.actSettings = withUsage(run, (u) => {
    usage.input_tokens += u.promptTokens;
    usage.output_tokens += u.completionTokens;
    usage.inference_time_ms += u.inferenceTimeMs;
  });
  // What leaves the browser names no variable's value: a URL may carry one, an element show it.
  const clean = <T>(value: T): T => scrub(value, request.variables, deps.logger.redactor);
  const actions: AgentAction[] = [];
  const healed: AgentReplayResult["healed"] = [];
  const answer = (performed: number, stopped?: { message: string; mismatch: boolean }) => ({
    performed,
    actions,
    healed,
    usage,
    ...(stopped ? { stopped: clean(stopped) } : {}),
  });
  const unguard = await guardRun(run);
  try {
    run.newTabs = await context.newTabs();
    for (const [i, step] of request.steps.entries()) {
      if (signal?.aborted) return answer(i, { message: "Stopped by the caller.", mismatch: false });
      const started = Date.now();
      const outcome = await withTimeout(
        "agent replay",
        stepTimeout,
        `step ${i + 1} of the cached run (${step.tool})`,
        async (deadline) => {
          const done = await perform(step, run, deadline, request.heal === true);
          // As the model's turn did in the recorded run, the page gets to take in what the step
          // started (a submitted form's next document) before the next step looks at it.
          const bound = Math.min(run.actSettings.domSettleTimeout, deadline.remaining() / 2);
          if (!("stopped" in done)) await settled(run, bound);
          return done;
        },
      ).catch((error: unknown): StepOutcome => {
        // A heal with no model to ask: the caller says so plainly.
        if (error instanceof MissingLLMConfigurationError) throw error;
        return { stopped: { message: readableMessage(error), mismatch: false } };
      });
      const refused = run.refused.splice(0);
      if (refused.length) {
        const message = `Navigation refused by the safety rule: ${refused.join("; ")}`;
        return answer(i, { message, mismatch: false });
      }
      if ("stopped" in outcome) return answer(i, outcome.stopped);
      // As recorded: the model's words and Action as it wrote them, the identity already hidden.
      if (outcome.healed) healed.push({ index: i, step: outcome.healed });
      actions.push(clean({ ...outcome.action, timeMs: Date.now() - started }));
    }
    return answer(request.steps.length);
  } finally {
    await unguard?.();
  }
}

async function perform(
  step: AgentStep,
  run: AgentRun,
  deadline: Deadline,
  heal: boolean,
): Promise<StepOutcome> {
  if (step.tool === "act") return performAct(step, run, deadline, heal);
  if (step.tool === "keys") {
    const now = await focusWhere(step.focus, run, deadline);
    if (!sameFocus(now, step.focus)) {
      return {
        stopped: {
          message: `The keys ${step.input.keys.join(", ")} went to ${describe(step.focus)}; the focus is now on ${describe(now)}. Nothing was pressed.`,
          mismatch: false,
        },
      };
    }
  }
  const output = await REPLAYED_TOOLS[step.tool].execute(step.input, run, deadline);
  return { action: { type: step.tool, taskCompleted: false, ...output.action } };
}

async function performAct(
  step: Extract<AgentStep, { tool: "act" }>,
  run: AgentRun,
  deadline: Deadline,
  heal: boolean,
): Promise<StepOutcome> {
  const options = { variables: run.variables };
  const result = await act(
    run.context,
    run.page(),
    step.action,
    options,
    run.actSettings,
    deadline,
    { expect: step.identity, startOrigin: run.start.origin },
  );
  const done = (description: string, healedStep?: AgentStep): StepOutcome => ({
    action: {
      type: "act",
      instruction: step.instruction,
      action: description,
      success: true,
      taskCompleted: false,
      pageUrl: run.page().url(),
      ...(healedStep ? { healed: true } : {}),
    },
    healed: healedStep,
  });
  if (result.success) return done(result.actionDescription);
  if (!result.mismatch || !heal) {
    return { stopped: { message: result.message, mismatch: result.mismatch === true } };
  }
  // Nothing was done on the changed element: find it again by the words that asked for it.
  run.logger.info("cache", "a cached element changed; finding it again", {
    instruction: step.instruction,
  });
  const again = await act(
    run.context,
    run.page(),
    step.instruction,
    { ...options, model: run.executionModel },
    run.actSettings,
    deadline,
    { identify: true, startOrigin: run.start.origin },
  );
  const action = again.actions.at(-1);
  const identity = again.identities?.at(-1);
  if (!again.success || !action || !identity) {
    return {
      stopped: {
        message: `${result.message} Finding it again did not work: ${again.message}`,
        mismatch: true,
      },
    };
  }
  return done(again.actionDescription, { ...step, action, identity });
}

/**
 * One task of the page's (what the step queued, a form's submission, has begun), then nothing
 * loading (the next document), within `timeoutMs`.
 */
async function settled(run: AgentRun, timeoutMs: number): Promise<void> {
  const page = run.context.activePage()?.playwrightPage;
  if (!page || page.isClosed()) return;
  const endsAt = Date.now() + timeoutMs;
  await turnOf(page, "task", timeoutMs).catch(() => false);
  await networkIdle(page, Math.max(0, endsAt - Date.now()), run.logger);
}

/** What has the focus, given up to FOCUS_WAIT_MS to be where it was recorded (a dialog's field). */
async function focusWhere(
  recorded: ElementIdentity | null,
  run: AgentRun,
  deadline: Deadline,
): Promise<ElementIdentity | null> {
  const endsAt = Date.now() + Math.min(FOCUS_WAIT_MS, deadline.remaining() / 2);
  for (;;) {
    const now = hideIdentity(await focusedIdentity(run.page().playwrightPage), run.variables);
    if (sameFocus(now, recorded) || Date.now() >= endsAt) return now;
    await sleep(FOCUS_POLL_MS, deadline.signal);
  }
}

function sameFocus(now: ElementIdentity | null, recorded: ElementIdentity | null): boolean {
  return now === null || recorded === null ? now === recorded : sameIdentity(now, recorded);
}

function describe(identity: ElementIdentity | null): string {
  return identity ? `${identity.role} "${identity.name}"` : "the page";
}
