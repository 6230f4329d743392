/**
 * The `error` of a failed run's answer (and of its webhook payload): one line that names the
 * step, says what failed and what to do. A timeout says how long the step had and points to the
 * job's budget; every other error is made readable by `readableMessage`. Secrets are not this
 * module's concern: the caller redacts the result.
 */
import { codeOf, ServiceTimeoutError } from "../errors.js";
import { readableMessage } from "../readableError.js";

export interface FailureContext {
  /** The step the run was in (init, goto, act, extract, close); none before the run started. */
  step?: string;
  /** The run's whole budget, ms. */
  budgetMs?: number;
}

export function failureMessage(error: unknown, context: FailureContext = {}): string {
  const { step } = context;
  const text =
    codeOf(error) === ServiceTimeoutError.code
      ? timeoutText(error as ServiceTimeoutError, context)
      : readableMessage(error);
  if (!step) return text;
  // A library error already names its method ("goto: …"); the step says it once.
  const own = text.startsWith(`${step}: `) ? text.slice(step.length + 2) : text;
  return `Step "${step}" failed: ${own}`;
}

function timeoutText(error: ServiceTimeoutError, { step, budgetMs }: FailureContext): string {
  const steps = error.steps.length ? `; steps: ${error.steps.join(", ")}` : "";
  const waited = `${error.timeoutMs} ms passed waiting for ${error.waitingFor}${steps}`;
  const budget = budgetMs === undefined ? "" : ` (this run had ${budgetMs} ms)`;
  const more = `give the job more time with JOB_BUDGET_MS${budget}`;
  const advice =
    step === "goto"
      ? `Check that its server answers, or ${more}`
      : `${more[0]!.toUpperCase()}${more.slice(1)}, or give the step less to do`;
  // The server may have answered and only the load event not come (a slow image): say what is known.
  const what = step === "goto" ? "the page did not finish loading" : "not done";
  return `${what} within ${seconds(error.timeoutMs)} (${waited}). ${advice}.`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}
