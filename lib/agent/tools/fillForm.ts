import { z } from "zod";
import type { ActResult, AgentStep } from "../../api/operations.js";
import { act } from "../../handlers/act.js";
import { findElements } from "../../handlers/observe.js";
import { snapshotFor } from "../../handlers/pageSnapshot.js";
import type { Action } from "../../options.js";
import type { Deadline } from "../../timeout.js";
import { fillVariables } from "../../variables.js";
import { elementById, elementKey, StaleIdError } from "../elementById.js";
import { pageAfter } from "../pageOutline.js";
import { elementStep } from "../recording.js";
import { actOn } from "./act.js";
import type { AgentRun } from "./defineTool.js";
import { defineTool } from "./defineTool.js";

const Field = z
  .object({
    id: z.coerce.string().optional().describe("The field's [id] in the latest outline"),
    field: z.string().min(1).optional().describe('Without id: its name, "Email"'),
    value: z.string().describe("The text, or a %name% token"),
  })
  .refine((f) => f.id !== undefined || f.field !== undefined, {
    error: "give the field's id, or its name",
  });
type Field = z.output<typeof Field>;

export default defineTool({
  name: "fillForm",
  description:
    "Fill several text fields at once, by [id] (answers with the page after) or by name. Submitting is a separate act.",
  unreplayableOnError: true,
  loopKey: (input, run) =>
    ((input as { fields?: { id?: unknown }[] }).fields ?? [])
      .map((f) => elementKey(run.seen.forIds, f.id) ?? "")
      .join("\n"),
  inputSchema: z.object({
    fields: z.array(Field).min(1).max(30).describe("In page order"),
  }),
  async execute({ fields }, run, deadline) {
    const page = run.page();
    // Before anything is typed: every id is one of the outline the model read, and every
    // %name% a value uses is a variable (a form half filled helps nobody).
    for (const f of fields) fillVariables(f.value, run.variables);
    const byId = fields.map((f) =>
      f.id === undefined
        ? undefined
        : elementById(run.seen.forIds, f.id, "fill", f.value, run.variables),
    );
    const named = fields.filter((f) => f.id === undefined);
    const found = named.length ? await findByName(named, run, deadline) : new Map();
    const report: string[] = [];
    const replay: AgentStep[] = [];
    let unreplayable = false;
    let failures = 0;
    for (const [i, field] of fields.entries()) {
      // Out of time: the fields left are not typed behind the model's back.
      if (deadline.signal.aborted) break;
      const target = byId[i];
      const label = target ? `[${target.id}] ${target.line}` : field.field!;
      let result: ActResult;
      try {
        result = target
          ? await actOn(target, run, deadline)
          : await act(
              run.context,
              page,
              { ...found.get(field)!, method: "fill", arguments: [field.value] },
              { variables: run.variables },
              run.actSettings,
              deadline,
              { identify: run.recording, startOrigin: run.start.origin },
            );
      } catch (error) {
        if (!(error instanceof StaleIdError)) throw error;
        // The page changed under the form: the fields left are not typed blindly.
        // Nothing was typed from here on: the fields filled so far stay replayable.
        report.push(`${label}: not filled (${error.message})`);
        failures += fields.length - i;
        break;
      }
      const steps = elementStep(
        `fill the ${target?.line ?? field.field} field with ${field.value}`,
        result,
      );
      if (steps) replay.push(...steps);
      else unreplayable = true;
      if (!result.success) failures++;
      report.push(`${label}: ${result.success ? "filled" : `failed (${result.message})`}`);
    }
    const summary = `${failures ? `${failures} field(s) failed` : "All fields filled"}.\n${report.join("\n")}`;
    const action = {
      action: report.join("; "),
      fields: fields.map((f) => ({ field: f.field ?? `[${f.id}]`, value: f.value })),
      pageUrl: page.url(),
    };
    const replayed = run.recording ? (unreplayable ? null : replay) : undefined;
    const failed = failures ? `${failures} field(s) failed` : undefined;
    if (byId.every((t) => t === undefined)) {
      return { text: summary, action, replay: replayed, failed };
    }
    // Fields named by id: the model reads the page as it is after, with no outline call.
    const { url, ...after } = await pageAfter(run, deadline, summary);
    return {
      ...after,
      // Once a newer outline came: the summary's first line, not the fields' old ids.
      shortened: after.shortened?.replace(summary, summary.split("\n")[0]!),
      action: { ...action, pageUrl: url },
      replay: replayed,
      failed,
    };
  },
});

/**
 * Fields named in words: found with one look at the page (one model call for all of them),
 * each paired with its field by the value the model gave it, never by position: a password
 * must not land in the field next to it.
 */
async function findByName(
  fields: Field[],
  run: AgentRun,
  deadline: Deadline,
): Promise<Map<Field, Action>> {
  const snapshot = await snapshotFor(run.page(), {}, run.actSettings, deadline);
  const list = fields.map((f, i) => `${i + 1}. ${f.field}: ${f.value}`).join("\n");
  const found = await findElements(
    `The ${fields.length} form fields below, one element each, in the same order, each with method "fill" and the value as its argument:\n${list}`,
    snapshot,
    { model: run.executionModel, variables: run.variables },
    run.actSettings,
    deadline,
    "act",
  );
  const left = [...found];
  const pairs = new Map<Field, Action>();
  for (const field of fields) {
    const i = left.findIndex((a) => a.arguments?.[0] === field.value);
    if (i !== -1) pairs.set(field, left.splice(i, 1)[0]!);
  }
  const missing = fields.filter((f) => !pairs.has(f)).map((f) => f.field);
  if (missing.length) {
    const seen = found.map((a) => a.description).join(", ") || "none";
    throw new Error(
      `could not tell which element is ${missing.map((m) => `"${m}"`).join(", ")} (found: ${seen}); nothing was filled; fill them one by one with act`,
    );
  }
  return pairs;
}
