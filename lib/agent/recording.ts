/**
 * What a run records for its replay (`shouldCache`, dom mode): each tool call that changed the
 * page, as steps a replay performs again without the model. One call that changed the page in a
 * way no step can repeat (an element acted on whose identity could not be read) makes the whole
 * run unreplayable: a replay that skipped it would go on from another page.
 */
import type { ActResult, AgentStep } from "../api/operations.js";
import type { Variables } from "../options.js";
import { hideVariables } from "../variables.js";

export class Recording {
  private readonly steps: AgentStep[] = [];
  private unreplayable = false;

  /** `variables`: the run's; a value the model or the page put in a step is kept as its %name%. */
  constructor(private readonly variables: Variables | undefined) {}

  /** A tool call's steps; `null` when what it did cannot be repeated. */
  add(steps: AgentStep[] | null): void {
    if (steps === null) this.unreplayable = true;
    else this.steps.push(...steps.map((step) => this.hidden(step)));
  }

  /** Identities are hidden where they are read (act, keys); the words, values and a URL here. */
  private hidden(step: AgentStep): AgentStep {
    const hide = (text: string) => hideVariables(text, this.variables);
    if (step.tool === "act") {
      const { action } = step;
      return {
        ...step,
        action: {
          ...action,
          description: hide(action.description),
          ...(action.arguments ? { arguments: action.arguments.map(hide) } : {}),
        },
        instruction: hide(step.instruction),
      };
    }
    if (step.tool === "goto") return { ...step, input: { url: hide(step.input.url) } };
    return step;
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
