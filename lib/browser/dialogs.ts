/**
 * JavaScript dialogs never block a call: each one is settled by the client's policy and logged.
 * A handler that throws, or has not settled the dialog in time, is overruled by a dismissal.
 */
import type { Dialog, Page } from "playwright-core";
import type { Logger } from "../log.js";
import type { DialogPolicy } from "../options.js";

const HANDLER_BUDGET_MS = 5_000;

/**
 * A dialog the browser refused to settle, by page, until the page raises another or leaves its
 * document. It holds the page (its document can neither run nor be replaced), so a navigation
 * timing out says so rather than blaming the server (`heldDialog`).
 */
const held = new WeakMap<Page, string>();

/** The dialog that holds `page`, as a phrase (`an alert ("Pay now?")`), if one does. */
export function heldDialog(page: Page): string | undefined {
  return held.get(page);
}

/** The browser's own refusal (its protocol error), not a handler's error or our budget. */
const refusedByBrowser = (error: unknown) =>
  /Page\.handleJavaScriptDialog/.test(error instanceof Error ? error.message : String(error));

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
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) held.delete(page);
  });
  page.on("dialog", (dialog) => {
    held.delete(page);
    void settle(dialog, policy, logger).then((refused) => {
      if (refused) held.set(page, `${article(dialog.type())} ${dialog.type()} (${quoted(dialog)})`);
    });
  });
}

const article = (type: string) => (/^[aeiou]/.test(type) ? "an" : "a");
const quoted = (dialog: Dialog) => JSON.stringify(dialog.message().slice(0, 80));

/** Settles the dialog by the policy; answers whether the browser refused to settle it. */
async function settle(dialog: Dialog, policy: DialogPolicy, logger: Logger): Promise<boolean> {
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
    return false;
  } catch (error) {
    // Dismiss whatever the handler left open; "already handled" is the good case.
    const last = await dialog.dismiss().then(
      () => undefined,
      (e: unknown) => e,
    );
    const refused = refusedByBrowser(error) || (last !== undefined && refusedByBrowser(last));
    logger.warn(
      "dialog",
      refused
        ? `${dialog.type()} dialog left open: the browser refused to settle it (${(error as Error).message})`
        : `${dialog.type()} dialog dismissed: ${(error as Error).message}`,
      auxiliary,
    );
    return refused;
  }
}
