/**
 * What every handler starts with: the page a call is about (the given one, else the active
 * one), and its outline, under the call's deadline.
 */
import type { Context } from "../browser/context.js";
import { Page } from "../browser/page.js";
import { ServiceError } from "../errors.js";
import type { Logger } from "../log.js";
import { type Snapshot, takeSnapshot } from "../snapshot/snapshot.js";
import type { Deadline } from "../timeout.js";

export interface SnapshotSettings {
  domSettleTimeout: number;
  outlineTokenBudget: number;
  logger: Logger;
  /** Hides values typed from variables: a later outline shows their `%name%` instead. */
  mask?: (text: string) => string;
}

export async function snapshotFor(
  page: Page,
  options: { selector?: string; ignoreSelectors?: string[] },
  settings: SnapshotSettings,
  deadline: Deadline,
): Promise<Snapshot> {
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
  const { mask } = settings;
  if (!mask) return snapshot;
  return {
    ...snapshot,
    text: mask(snapshot.text),
    chunks: snapshot.chunks.map((c) => ({ ...c, text: mask(c.text) })),
  };
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
