/**
 * What every handler starts with: the page a call is about (named by its frameId, else the
 * active one), and its outline, under the call's deadline.
 */
import type { Context } from "../browser/context.js";
import type { Page } from "../browser/page.js";
import {
  ContentFrameNotFoundError,
  PageNotFoundError,
  ServiceError,
  ServiceIframeError,
  ServiceShadowRootMissingError,
  XPathResolutionError,
} from "../errors.js";
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
  try {
    return await takeSnapshot(
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
  } catch (error) {
    throw namingTheField(error, options);
  }
}

/** The errors of a selector the caller gave, each the caller's to fix. */
const SELECTOR_ERRORS = [
  XPathResolutionError,
  ContentFrameNotFoundError,
  ServiceIframeError,
  ServiceShadowRootMissingError,
];

/**
 * A scope or ignore selector's error, its message led by the option it came from: the resolver
 * below knows the selector, not which option held it. The scope is resolved first.
 */
function namingTheField(
  error: unknown,
  options: { selector?: string; ignoreSelectors?: string[] },
): unknown {
  if (!SELECTOR_ERRORS.some((type) => error instanceof type)) return error;
  const failed = error as ServiceError;
  const quoted = (selector: string) => failed.message.includes(selector);
  const index = options.ignoreSelectors?.findIndex(quoted) ?? -1;
  const field =
    options.selector !== undefined && (index < 0 || quoted(options.selector))
      ? "options.selector"
      : index >= 0
        ? `options.ignoreSelectors[${index}]`
        : undefined;
  if (field === undefined) return error;
  failed.message = `${field}: ${failed.message}`;
  return failed;
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
    throw new PageNotFoundError(
      frameId,
      ids.filter((id): id is string => id !== undefined),
    );
  }
  return found;
}
