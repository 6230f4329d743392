/**
 * What every handler starts with: the page a call is about (named by its frameId, else the
 * active one), and its outline, under the call's deadline.
 */
import type { Context } from "../browser/context.js";
import type { Page } from "../browser/page.js";
import { ServiceError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Mask } from "../snapshot/quoting.js";
import { type Snapshot, takeSnapshot } from "../snapshot/snapshot.js";
import type { Deadline } from "../timeout.js";

export interface SnapshotSettings {
  domSettleTimeout: number;
  outlineTokenBudget: number;
  /** The most chunks one call sends to the model. */
  maxChunksPerCall: number;
  logger: Logger;
  /**
   * Hides values typed from variables: a later outline shows their `%name%` instead. Made once
   * per snapshot (the values typed so far), then applied to each line.
   */
  mask?: () => Mask;
}

export async function snapshotFor(
  page: Page,
  options: { selector?: string; ignoreSelectors?: string[]; identities?: boolean },
  settings: SnapshotSettings,
  deadline: Deadline,
): Promise<Snapshot> {
  return takeSnapshot(
    page.playwrightPage,
    {
      selector: options.selector,
      ignoreSelectors: options.ignoreSelectors,
      domSettleTimeout: settings.domSettleTimeout,
      tokenBudget: settings.outlineTokenBudget,
      mask: settings.mask?.(),
      identities: options.identities,
    },
    deadline,
    settings.logger,
  );
}

/** The active page; a call with no page named works there. */
export function activePageOf(context: Context): Page {
  const active = context.activePage();
  if (!active) throw new ServiceError("There is no open page: open one with context.newPage().");
  return active;
}

/** The open page a call names by its frameId, else the active one. */
export async function pageById(context: Context, frameId: string | undefined): Promise<Page> {
  if (frameId === undefined) return activePageOf(context);
  const pages = context.pages();
  const ids = await Promise.all(pages.map((p) => p.frameId().catch(() => undefined)));
  const found = pages[ids.indexOf(frameId)];
  if (!found) {
    throw new ServiceError(
      `No open page has frameId ${frameId}: it was closed, or it belongs to another client.`,
    );
  }
  return found;
}
