/**
 * observe(instruction, options): the elements that match an instruction, as Actions ordered by
 * relevance: `{ selector, description, method, arguments }`. The model answers with outline
 * ids, which become selectors here. Variables reach the model by name only; arguments keep
 * their `%name%` tokens. Without an instruction, every interactive element, with no model call.
 * An outline over the token budget is walked chunk by chunk, from the viewport, until the
 * model finds something.
 */
import { z } from "zod";
import type { ObserveRequest } from "../api/operations.js";
import type { Page } from "../browser/page.js";
import type { Models } from "../model/modelClient.js";
import { ACTION_METHODS, type Action, type Variables } from "../options.js";
import { withinCap } from "../snapshot/chunks.js";
import type { Snapshot } from "../snapshot/snapshot.js";
import type { Deadline } from "../timeout.js";
import { type SnapshotSettings, snapshotFor } from "./pageSnapshot.js";

export interface ObserveSettings extends SnapshotSettings {
  models: Models;
}

const SYSTEM = [
  "You find elements of a web page for a program that will act on them.",
  'The page is given as an outline: first document "title" (the page\'s title), then one line per element, "[id] role "name" states" or plain text, indented by nesting.',
  "Return the elements that match the instruction, most relevant first; none when nothing matches.",
  "For each: its id from its [id] line, a short description, the method to use on it, and the method's arguments.",
  `Methods: ${ACTION_METHODS.join(", ")}. fill and type take the text; press takes a key such as "Enter"; scrollTo takes a percentage such as "50%"; selectOptionFromDropdown takes the option's text; dragAndDrop takes the id of the element to drop on.`,
  "When a value is one of the variables listed, write its %name% token as the argument, never a value of your own.",
].join("\n");

const Answer = z.object({
  elements: z.array(
    z.object({
      elementId: z.string().describe('the id from the element\'s "[id]" line'),
      description: z.string().describe("what the element is, in a few words"),
      method: z.enum(ACTION_METHODS),
      arguments: z.array(z.string()).describe("the method's arguments; [] when it takes none"),
    }),
  ),
});

/** observe's options as they arrive, parsed (the page is the one the call is about). */
export type ObserveCallOptions = NonNullable<ObserveRequest["options"]>;

export async function observe(
  page: Page,
  instruction: string | undefined,
  options: ObserveCallOptions,
  settings: ObserveSettings,
  deadline: Deadline,
): Promise<Action[]> {
  const snapshot = await snapshotFor(page, options, settings, deadline);
  if (!instruction) return everyInteractive(snapshot);
  return findElements(instruction, snapshot, options, settings, deadline, "observe");
}

/** No instruction: every element with an id, in outline order. */
function everyInteractive(snapshot: Snapshot): Action[] {
  // One pass over the outline: each id line is its element's description.
  const actions: Action[] = [];
  for (const line of snapshot.text.split("\n")) {
    const m = line.match(/^\s*\[(\d+)\] (.*)$/);
    const selector = m ? selectorOf(snapshot, m[1]!) : undefined;
    if (selector) actions.push({ selector, description: m![2]!, method: "click", arguments: [] });
  }
  return actions;
}

/** The model's choice of elements for `instruction`, as Actions; usage filed under `operation`. */
export async function findElements(
  instruction: string,
  snapshot: Snapshot,
  options: Pick<ObserveCallOptions, "model" | "variables">,
  settings: Pick<ObserveSettings, "models" | "maxChunksPerCall" | "logger">,
  deadline: Deadline,
  operation: "observe" | "act",
): Promise<Action[]> {
  const names = describeVariables(options.variables);
  // Within the budget the whole outline goes at once; over it, chunks from the viewport on, as
  // many as the cap allows.
  const parts =
    snapshot.chunks.length <= 1
      ? [snapshot.text]
      : withinCap(
          [
            ...snapshot.chunks.slice(snapshot.startChunk),
            ...snapshot.chunks.slice(0, snapshot.startChunk),
          ].map((c) => c.text),
          settings.maxChunksPerCall,
          (read) =>
            settings.logger.warn(operation, "the page is too large to read whole", {
              partsRead: read,
              parts: snapshot.chunks.length,
              why: "maxChunksPerCall: the parts nearest the viewport were read",
            }),
        );
  for (const [i, part] of parts.entries()) {
    deadline.step(parts.length > 1 ? `model (chunk ${i + 1} of ${parts.length})` : "model");
    const answer = await settings.models.generate({
      operation,
      system: SYSTEM,
      prompt: `Instruction: ${instruction}\n${names}\nPage outline:\n${part}`,
      schema: Answer,
      model: options.model,
      signal: deadline.signal,
    });
    const actions = answer.value.elements.flatMap((e): Action[] => {
      const id = e.elementId.trim().match(/\d+/)?.[0] ?? "";
      const selector = selectorOf(snapshot, id);
      // An id the outline does not have is the model's invention: left out.
      if (!selector) return [];
      // dragAndDrop's argument is the target's id: it becomes the target's selector.
      const args =
        e.method === "dragAndDrop"
          ? e.arguments.map((a) => selectorOf(snapshot, a.trim().match(/\d+/)?.[0] ?? "") ?? a)
          : e.arguments;
      return [{ selector, description: e.description, method: e.method, arguments: args }];
    });
    if (actions.length) return actions;
  }
  return [];
}

function selectorOf(snapshot: Snapshot, id: string): string | undefined {
  return Object.hasOwn(snapshot.selectors, id) ? snapshot.selectors[id] : undefined;
}

/** The variables the model may use, by name (and description): never their values. */
function describeVariables(variables: Variables | undefined): string {
  const entries = Object.entries(variables ?? {});
  if (!entries.length) return "";
  const lines = entries.map(([name, v]) => {
    const description = typeof v === "object" ? v.description : undefined;
    return `- %${name}%${description ? `: ${description}` : ""}`;
  });
  return `Variables (write the token, the program puts the value in):\n${lines.join("\n")}\n`;
}
