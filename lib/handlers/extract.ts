/**
 * extract(): the page's outline as `{ pageText }`, honouring `selector`, `ignoreSelectors`,
 * `page` and `timeout`. The forms with an instruction need the model layer and come with it.
 */
import type { Context } from "../browser/context.js";
import { Page } from "../browser/page.js";
import { ServiceError } from "../errors.js";
import type { Logger } from "../log.js";
import { type ExtractOptions, ExtractOptionsSchema, parseInput } from "../options.js";
import { takeSnapshot } from "../snapshot/snapshot.js";
import { DEFAULT_TIMEOUT_MS, withTimeout } from "../timeout.js";

export interface ExtractSettings {
  domSettleTimeout: number;
  outlineTokenBudget: number;
  logger: Logger;
}

export async function extractPageText(
  context: Context,
  input: ExtractOptions | undefined,
  settings: ExtractSettings,
): Promise<{ pageText: string }> {
  const options = parseInput(ExtractOptionsSchema.optional(), input, "extract.options") ?? {};
  const page = pageFor(context, options.page);
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  return withTimeout("extract", timeout, "the page outline", async (deadline) => {
    const snapshot = await takeSnapshot(
      page.playwrightPage,
      {
        selector: options.selector,
        ignoreSelectors: options.ignoreSelectors,
        domSettleTimeout: settings.domSettleTimeout,
        tokenBudget: settings.outlineTokenBudget,
      },
      deadline,
      settings.logger,
    );
    return { pageText: snapshot.text };
  });
}

/** The page asked for (ours, or the Playwright page under one of ours), else the active one. */
export function pageFor(context: Context, given: object | undefined): Page {
  if (given === undefined) {
    const active = context.activePage();
    if (!active) throw new ServiceError("There is no open page: open one with context.newPage().");
    return active;
  }
  const found = context
    .pages()
    .find((p) => p === given || (!(given instanceof Page) && p.playwrightPage === given));
  if (!found) {
    throw new ServiceError(
      "options.page is not an open page of this client: pass one of client.context.pages().",
    );
  }
  return found;
}
