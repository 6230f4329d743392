import { z } from "zod";
import type { AgentStep } from "../../api/operations.js";
import { act } from "../../handlers/act.js";
import { findElements } from "../../handlers/observe.js";
import { snapshotFor } from "../../handlers/pageSnapshot.js";
import type { Action } from "../../options.js";
import { elementStep } from "../recording.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "fillForm",
  description:
    "Fill several fields of a form in one go (text fields, text areas). Finds all the fields with one look at the page, then fills each. Submitting is a separate act.",
  unreplayableOnError: true,
  inputSchema: z.object({
    fields: z
      .array(
        z.object({
          field: z
            .string()
            .min(1)
            .describe('The field as a user would name it: "Email", "First name"'),
          value: z
            .string()
            .describe("The text to put in it; a %name% token for a variable's value"),
        }),
      )
      .min(1)
      .max(30)
      .describe("The fields, in the order they appear"),
  }),
  async execute({ fields }, run, deadline) {
    const page = run.page();
    const snapshot = await snapshotFor(page, {}, run.actSettings, deadline);
    const list = fields.map((f, i) => `${i + 1}. ${f.field}: ${f.value}`).join("\n");
    const found = await findElements(
      `The ${fields.length} form fields below, one element each, in the same order, each with method "fill" and the value as its argument:\n${list}`,
      snapshot,
      { model: run.executionModel, variables: run.variables },
      run.actSettings,
      deadline,
      "act",
    );
    // Each element is paired with its field by the value the model gave it, never by position:
    // a password must not land in the field next to it.
    const left = [...found];
    const pairs = fields.map((field) => {
      const i = left.findIndex((a) => a.arguments?.[0] === field.value);
      return i === -1 ? undefined : left.splice(i, 1)[0];
    });
    const missing = fields.filter((_, i) => !pairs[i]).map((f) => f.field);
    if (missing.length) {
      const seen = found.map((a) => a.description).join(", ") || "none";
      throw new Error(
        `could not tell which element is ${missing.map((m) => `"${m}"`).join(", ")} (found: ${seen}); nothing was filled; fill them one by one with act`,
      );
    }
    const report: string[] = [];
    const replay: AgentStep[] = [];
    let unreplayable = false;
    let failures = 0;
    for (const [i, field] of fields.entries()) {
      // Out of time: the fields left are not typed behind the model's back.
      if (deadline.signal.aborted) break;
      const action: Action = { ...pairs[i]!, method: "fill", arguments: [field.value] };
      const result = await act(
        run.context,
        page,
        action,
        { variables: run.variables },
        run.actSettings,
        deadline,
        { identify: run.recording, startOrigin: run.start.origin },
      );
      const steps = elementStep(`fill the ${field.field} field with ${field.value}`, result);
      if (steps) replay.push(...steps);
      else unreplayable = true;
      if (!result.success) failures++;
      report.push(`${field.field}: ${result.success ? "filled" : `failed (${result.message})`}`);
    }
    return {
      text: `${failures ? `${failures} field(s) failed` : "All fields filled"}.\n${report.join("\n")}`,
      action: {
        action: report.join("; "),
        fields: fields.map((f) => ({ field: f.field, value: f.value })),
        pageUrl: page.url(),
      },
      replay: run.recording ? (unreplayable ? null : replay) : undefined,
    };
  },
});
