/**
 * JavaScript dialogs never block a call: each one is settled by the client's policy and logged.
 * A handler that throws, or has not settled the dialog in time, is overruled by a dismissal.
 */
import type { Dialog, Page } from "playwright-core";
import type { Logger } from "../log.js";
import type { DialogPolicy } from "../options.js";

const HANDLER_BUDGET_MS = 5_000;

/**
 * Who settles a page's dialogs on this side: the policy; or another connection to the same
 * browser does (a remote client and its service: exactly one side settles them), and this side
 * leaves them, saying in its log what the other side does when it knows (`settledElsewhere`).
 */
export type DialogDuty = DialogPolicy | "leave" | { settledElsewhere: "dismiss" | "accept" };

export function settleDialogs(page: Page, policy: DialogDuty, logger: Logger): void {
  // A listener that does not settle still keeps Playwright from dismissing the dialog itself.
  if (policy === "leave") return void page.on("dialog", () => {});
  if (typeof policy === "object") {
    return void page.on("dialog", (dialog) =>
      logger.info("dialog", `${dialog.type()} dialog ${policy.settledElsewhere}ed`, {
        type: dialog.type(),
        message: dialog.message(),
        url: dialog.page()?.url(),
      }),
    );
  }
  page.on("dialog", (dialog) => void settle(dialog, policy, logger));
}

async function settle(dialog: Dialog, policy: DialogPolicy, logger: Logger): Promise<void> {
  const auxiliary = { type: dialog.type(), message: dialog.message(), url: dialog.page()?.url() };
  try {
    if (policy === "dismiss") await dialog.dismiss();
    else if (policy === "accept") await dialog.accept(dialog.defaultValue());
    else {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.resolve(policy(dialog)),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the dialog handler did not finish in ${HANDLER_BUDGET_MS} ms`)),
            HANDLER_BUDGET_MS,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      // A handler that returned without settling the dialog would leave the page blocked.
      await dialog.dismiss().catch(() => {});
    }
    logger.info(
      "dialog",
      `${dialog.type()} dialog ${typeof policy === "string" ? `${policy}ed` : "handled"}`,
      auxiliary,
    );
  } catch (error) {
    // Dismiss whatever the handler left open; "already handled" is the good case.
    await dialog.dismiss().catch(() => {});
    logger.warn(
      "dialog",
      `${dialog.type()} dialog dismissed: ${(error as Error).message}`,
      auxiliary,
    );
  }
}
