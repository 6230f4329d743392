/**
 * What every handler starts with: the page a call is about (named by its frameId, else the
 * active one), and its outline, under the call's deadline.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Page as PlaywrightPage } from "playwright-core";
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

type SnapshotOptions = {
  selector?: string;
  ignoreSelectors?: string[];
  identities?: boolean;
  /** Whether the page is still as this outline showed it can be asked later (outlineMarks.ts). */
  marked?: boolean;
};

/** What a sharing scope holds: its first outline, until the next call takes it or asks another. */
interface Sharing {
  first?: { page: Page; asked: string; navigations: number; snapshot: Snapshot };
  /** The first outline was taken or passed over: every later call reads the page itself. */
  spent: boolean;
}

const sharing = new AsyncLocalStorage<Sharing>();

/** Per page, how often any of its frames has navigated, counted once a scope first reads it. */
const navigations = new WeakMap<PlaywrightPage, { count: number }>();

/**
 * The page's navigations so far. An outline counted under another number may be of a document
 * that is gone (a redirect by a timer between the key and the operation, a frame that loaded):
 * its ids would name elements of another document. Told by Playwright's own events: no call
 * into the browser.
 */
function navigationsOf(page: PlaywrightPage): number {
  let counter = navigations.get(page);
  if (!counter) {
    const made = { count: 0 };
    page.on("framenavigated", () => {
      made.count++;
    });
    navigations.set(page, made);
    counter = made;
  }
  return counter.count;
}

/**
 * Runs `work` with its first outline handed, once, to the call that asks next for the same
 * outline of the same page: the service's cache reads the page for an operation's key, and the
 * operation then works from that outline instead of walking the page again (nothing acted on
 * the page in between, and none of its frames navigated). Every call after those two reads the
 * page afresh.
 */
export function sharingSnapshots<T>(work: () => Promise<T>): Promise<T> {
  return sharing.run({ spent: false }, work);
}

export async function snapshotFor(
  page: Page,
  options: SnapshotOptions,
  settings: SnapshotSettings,
  deadline: Deadline,
): Promise<Snapshot> {
  const scope = sharing.getStore();
  const asked = scope && !scope.spent ? askedOf(options) : "";
  if (scope?.first) {
    const { first } = scope;
    scope.first = undefined;
    scope.spent = true;
    const same = first.page === page && first.asked === asked;
    if (same && first.navigations === navigationsOf(page.playwrightPage)) return first.snapshot;
  }
  if (!scope || scope.spent) return freshSnapshot(page, options, settings, deadline);
  // Counted before the walk: a navigation during it also keeps its outline from being handed on.
  const counted = navigationsOf(page.playwrightPage);
  const snapshot = await freshSnapshot(page, options, settings, deadline);
  if (!scope.spent) scope.first = { page, asked, navigations: counted, snapshot };
  return snapshot;
}

/**
 * Within a sharing scope, the outline kept so far goes to no one: what runs next reads the page
 * (a cached action performed again: if it fails, self-healing looks at the page as it is).
 */
export function dropSharedSnapshot(): void {
  const scope = sharing.getStore();
  if (!scope) return;
  scope.first = undefined;
  scope.spent = true;
}

/** The options that change an outline, as one comparable value. */
const askedOf = (options: SnapshotOptions) =>
  JSON.stringify([options.selector ?? null, options.ignoreSelectors ?? [], !!options.identities]);

async function freshSnapshot(
  page: Page,
  options: SnapshotOptions,
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
        marked: options.marked,
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
