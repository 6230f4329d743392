import { z } from "zod";
import { fillVariables } from "../../handlers/performAction.js";
import { performComputerAction, readComputerCall } from "../computerActions.js";
import { captureMasked } from "../maskedCapture.js";
import { screenFor } from "../screen.js";
import { markTyped } from "./coordinates.js";
import { defineTool } from "./defineTool.js";

/**
 * cua mode's one tool: the provider's computer-use tool (its schema is the provider's; the
 * model layer sends it as such). Each action answers with a screenshot, also when it failed.
 */
export default defineTool({
  name: "computer",
  description: "The browser's screen, mouse and keyboard.",
  inputSchema: z.looseObject({}),
  async execute(input, run, deadline) {
    const page = run.page().playwrightPage;
    let note: string;
    let acknowledged: Awaited<ReturnType<typeof readComputerCall>>["checks"] | undefined;
    try {
      const { action, checks } = readComputerCall(input);
      if (checks.length) {
        // Never accepted silently: the caller decides, and without an answer the run stops.
        const ok = run.onSafetyCheck ? await run.onSafetyCheck(checks) : false;
        if (!ok) {
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
              message: `Stopped: the model's provider raised safety checks that were not acknowledged (${listed}). Pass onSafetyCheck to decide.`,
              metadata: { safetyChecks: checks },
            },
          };
        }
        acknowledged = checks;
      }
      if (action.kind === "type") {
        markTyped(run, action.text);
        action.text = fillVariables(action.text, run.variables);
      }
      note = await performComputerAction(
        page,
        await screenFor(page),
        action,
        run.pointer,
        deadline.signal,
      );
    } catch (error) {
      // The protocol wants a screenshot after every call: the failure is told with it.
      note = `failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    await run.newTabs.settled(Math.min(2_000, deadline.remaining()));
    const now = run.page().playwrightPage;
    const { image } = await captureMasked(now, run.variables);
    return {
      text: note,
      image,
      imageInResult: true,
      perishable: true,
      acknowledged,
      action: { action: note, pageUrl: now.url() },
    };
  },
});
