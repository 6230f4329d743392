/**
 * What a run records for its replay (`shouldCache`, dom mode): each tool call that changed the
 * page, as steps a replay performs again without the model. One call that changed the page in a
 * way no step can repeat (an element acted on whose identity could not be read) makes the whole
 * run unreplayable: a replay that skipped it would go on from another page.
 */
import type { ActResult, AgentStep } from "../api/operations.js";

/**
 * The steps keep what the model wrote as it wrote it (its words, an Action's arguments, a URL):
 * the model never sees a variable's value, so they hold `%name%` tokens, and a replay performs
 * them as the run did. What the page shows (an element's name and context) is where a typed
 * value can appear: identities are recorded with values as their `%name%` where they are read.
 */
export class Recording {
  private readonly steps: AgentStep[] = [];
  private unreplayable = false;

  /** A tool call's steps; `null` when what it did cannot be repeated. */
  add(steps: AgentStep[] | null): void {
    if (steps === null) this.unreplayable = true;
    else this.steps.push(...steps);
  }

  /** The steps, or undefined when the run cannot be replayed. */
  result(): AgentStep[] | undefined {
    return this.unreplayable ? undefined : [...this.steps];
  }
}

/**
 * An act's step: the Action performed and its element's identity (act ran with `identify`),
 * with the words that asked for it. Nothing done: no step; done without an identity: `null`.
 */
export function elementStep(instruction: string, result: ActResult): AgentStep[] | null {
  if (!result.success) return [];
  const action = result.actions.at(-1);
  const identity = result.identities?.at(-1);
  if (!action || !identity) return null;
  return [{ tool: "act", action, identity, instruction }];
}
