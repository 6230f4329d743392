import { z } from "zod";
import { rawDetail, readableMessage } from "../../readableError.js";
import { fillVariables, hideVariables } from "../../variables.js";
import { performComputerAction, type Typing } from "../computerActions.js";
import { readComputerCall } from "../computerCalls.js";
import { openUrl } from "../openUrl.js";
import { screenFor } from "../screen.js";
import {
  captureAfterAction,
  markTyped,
  onPage,
  pinStart,
  showPoint,
  typingFor,
} from "./coordinates.js";
import { defineTool } from "./defineTool.js";

/**
 * cua mode's one tool: the provider's computer-use tool (its schema is the provider's; the
 * model layer sends it as such). Each action answers with a screenshot, also when it failed.
 */
export default defineTool({
  name: "computer",
  pixels: true,
  description: "The browser's screen, mouse and keyboard.",
  inputSchema: z.looseObject({}),
  // Results and events show the action asked for, not the protocol's bookkeeping.
  describeInput(input) {
    const i = (input ?? {}) as Record<string, unknown>;
    const google = i.google as { name?: string; args?: Record<string, unknown> } | undefined;
    if (google) return { action: google.name, ...google.args };
    if (i.item_id !== undefined) {
      const checks = i.safety_checks as unknown[] | undefined;
      return { action: i.action, ...(checks?.length ? { safety_checks: checks } : {}) };
    }
    return i;
  },
  async execute(input, run, deadline) {
    const page = run.page().playwrightPage;
    let note: string;
    let failed: string | undefined;
    let acknowledged: Awaited<ReturnType<typeof readComputerCall>>["checks"] | undefined;
    try {
      const screen = run.screens.latest ?? (await screenFor(page));
      const { action, checks } = readComputerCall(input, screen);
      if (checks.length) {
        // Never accepted silently: the caller decides, and without an answer the run stops.
        // Only a plain true acknowledges; an answer that throws is a no.
        let answer: unknown = false;
        let failure = "";
        try {
          answer = run.onSafetyCheck ? await run.onSafetyCheck(checks) : false;
        } catch (error) {
          failure = `; onSafetyCheck failed: ${error instanceof Error ? error.message : String(error)}`;
        }
        if (answer !== true) {
          const listed = checks
            .map((c) => `${c.code ?? c.id}: ${c.message ?? ""}`.trim())
            .join("; ");
          return {
            text: "Not done: the safety checks were not acknowledged.",
            action: { safetyChecks: checks },
            finish: {
              success: false,
              completed: false,
              stoppedBy: "safetyCheck",
              message: `Stopped: the model's provider raised safety checks that were not acknowledged (${listed})${failure}. Pass onSafetyCheck to decide.`,
              metadata: { safetyChecks: checks },
            },
          };
        }
        acknowledged = checks;
      }
      let typing: Typing | undefined;
      if (action.kind === "type" || action.kind === "typeAt") {
        const given = action.text;
        markTyped(run, given);
        action.text = fillVariables(given, run.variables);
        typing = typingFor(run, page, given);
      }
      if (action.kind === "navigate") {
        await openUrl(page, action.url, run.navigation, deadline, "navigate");
        pinStart(run);
        note = `opened ${page.url()}`;
      } else {
        const at = "at" in action ? action.at : action.kind === "drag" ? action.path[0] : undefined;
        if (at) await showPoint(run, screen, at);
        // Waiting ends at the caller's stop too; acting finishes its step.
        const signal = run.stop ? AbortSignal.any([deadline.signal, run.stop]) : deadline.signal;
        note = "";
        await onPage(page, deadline, async () => {
          note = await performComputerAction(
            page,
            screen,
            action,
            run.pointer,
            signal,
            deadline,
            typing,
          );
        });
        note ||= "the action closed the tab";
        if (deadline.signal.aborted) throw deadline.signal.reason;
      }
    } catch (error) {
      // The protocol wants a screenshot after every call: the failure is told with it, in one
      // readable line; Playwright's whole text (its call log) is for the debug log.
      run.logger.debug("agent", "computer action failed", {
        detail: hideVariables(rawDetail(error), run.variables),
      });
      failed = readableMessage(error);
      note = `failed: ${failed}`;
    }
    const { page: now, image } = await captureAfterAction(run, deadline);
    return {
      text: note,
      image,
      failed,
      imageInResult: true,
      perishable: true,
      resultMeta: {
        url: now.url(),
        ...(acknowledged ? { acknowledgedSafetyChecks: acknowledged } : {}),
      },
      action: { action: note, pageUrl: now.url() },
    };
  },
});
