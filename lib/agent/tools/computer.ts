import { z } from "zod";
import { NavigationRefusedError, navigationRefusal } from "../../browser/navigationPolicy.js";
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
      const screen = await screenFor(page);
      const { action, checks } = readComputerCall(input, screen);
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
      if (action.kind === "type" || action.kind === "typeAt") {
        markTyped(run, action.text);
        action.text = fillVariables(action.text, run.variables);
      }
      if (action.kind === "navigate") {
        // The navigation-safety rule, as for goto.
        const refused = await navigationRefusal(action.url, run.navigation);
        if (refused) throw new NavigationRefusedError(action.url, refused);
        await page.goto(action.url, {
          waitUntil: "domcontentloaded",
          timeout: Math.max(1, deadline.remaining() - Math.min(1_000, deadline.remaining() / 4)),
        });
        note = `opened ${page.url()}`;
      } else {
        note = await performComputerAction(page, screen, action, run.pointer, deadline.signal);
      }
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
      resultMeta: {
        url: now.url(),
        ...(acknowledged ? { acknowledgedSafetyChecks: acknowledged } : {}),
      },
      action: { action: note, pageUrl: now.url() },
    };
  },
});
