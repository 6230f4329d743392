import { z } from "zod";
import type { ActResult } from "../../api/operations.js";
import { act } from "../../handlers/act.js";
import type { Deadline } from "../../timeout.js";
import {
  type ElementById,
  elementById,
  elementKey,
  foundInstead,
  StaleIdError,
  staleMessage,
} from "../elementById.js";
import { pageAfter } from "../pageOutline.js";
import { elementStep } from "../recording.js";
import type { AgentRun } from "./defineTool.js";
import { defineTool } from "./defineTool.js";

/** What act does to an element named by id (the Action methods that need no second element). */
export const ID_METHODS = [
  "click",
  "fill",
  "type",
  "press",
  "selectOptionFromDropdown",
  "hover",
  "doubleClick",
  "scrollTo",
] as const;

/** Methods that take their text, option or position from `value`. */
const NEEDS_VALUE = new Set<string>(["fill", "type", "selectOptionFromDropdown", "scrollTo"]);

export default defineTool({
  name: "act",
  description:
    "One action on one element: by its [id] in the latest outline (answers with the page after), or in words.",
  unreplayableOnError: true,
  loopKey: (input, run) => elementKey(run.seen.forIds, (input as { id?: unknown }).id),
  inputSchema: z
    .object({
      id: z.coerce.string().optional().describe("The element's [id] in the latest outline"),
      method: z.enum(ID_METHODS).optional().describe("With id; default click"),
      value: z
        .string()
        .optional()
        .describe("fill/type: the text (or %name%); press: a key; select…: the option"),
      action: z
        .string()
        .min(1)
        .optional()
        .describe('Without id: the action in words, "click the Search button"'),
    })
    .refine((input) => input.id !== undefined || input.action !== undefined, {
      error: "give the element's id (with method), or the action in words",
    })
    .refine(
      (input) =>
        input.id === undefined ||
        !NEEDS_VALUE.has(input.method ?? "click") ||
        input.value !== undefined,
      {
        error:
          'method fill, type, selectOptionFromDropdown and scrollTo need a value ("" clears a field)',
        path: ["value"],
      },
    ),
  async execute({ id: given, method, value, action }, run, deadline) {
    // Some models send `id: null` beside the words: no id.
    const id = given === "null" || given === "" ? undefined : given;
    if (id !== undefined) {
      const target = elementById(run.seen.forIds, id, method ?? "click", value, run.variables);
      const result = await actOn(target, run, deadline);
      const head = result.success
        ? `Done: ${target.action.method} on ${target.line}.`
        : `Failed: ${result.message.replace(/\.$/, "")}.`;
      const { url, ...after } = await pageAfter(run, deadline, head);
      return {
        ...after,
        action: {
          action: result.actionDescription,
          elementId: target.id,
          method: target.action.method,
          success: result.success,
          pageUrl: url,
        },
        // The words a heal looks for it by, with what it typed or chose.
        replay: run.recording
          ? elementStep(
              `${target.action.method} ${target.line}${value === undefined ? "" : ` with ${value}`}`,
              result,
            )
          : undefined,
      };
    }
    if (action === undefined)
      throw new Error("give the element's id (with method), or the action in words");
    const result = await act(
      run.context,
      run.page(),
      action,
      { model: run.executionModel, variables: run.variables },
      run.actSettings,
      deadline,
      { identify: run.recording, startOrigin: run.start.origin },
    );
    // act waited for a tab its click opened: that is the page now.
    const page = run.page();
    return {
      text: `${result.success ? "Done" : "Failed"}: ${result.message.replace(/\.$/, "")}. The page is now ${page.url()}`,
      action: {
        instruction: action,
        action: result.actionDescription,
        success: result.success,
        pageUrl: page.url(),
      },
      replay: run.recording ? elementStep(action, result) : undefined,
    };
  },
});

/** Acts on the element an id named, only if it is still the one the outline showed. */
export async function actOn(
  target: ElementById,
  run: AgentRun,
  deadline: Deadline,
): Promise<ActResult> {
  // Nothing there any more fails at once: an id names what the model just read.
  const result = await act(
    run.context,
    run.page(),
    target.action,
    { variables: run.variables },
    run.actSettings,
    deadline,
    { expect: target.expect, startOrigin: run.start.origin, present: true },
  );
  if (result.mismatch) {
    const found = foundInstead(target.expect, result.identities?.[0]);
    throw new StaleIdError(staleMessage(target.id, target.line, found));
  }
  return result;
}
