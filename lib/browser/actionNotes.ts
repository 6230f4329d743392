/**
 * When an action of ours on a page last returned (a click, typing, a selection): the changes
 * its own handlers made before then are its result, not a page still moving (settling reads
 * this; see domActivity.ts). Kept as Node's time and handed to the page as an age, never as a
 * timestamp: the page's clock need not agree with ours (a Mac that slept, a browser on another
 * machine).
 */
import type { Page } from "playwright-core";

const notes = new WeakMap<Page, number>();

/** Notes that an action of ours on `page` has just returned. */
export function noteAction(page: Page): void {
  notes.set(page, Date.now());
}

/** Milliseconds since an action of ours on `page` returned; -1 if none has. */
export function actionAge(page: Page): number {
  const at = notes.get(page);
  return at === undefined ? -1 : Date.now() - at;
}
