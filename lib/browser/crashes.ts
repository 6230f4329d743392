/**
 * A renderer that crashed never answers: CDP calls to it wait forever. Pages are watched from
 * the moment they are adopted, so that a call can fail at once instead of waiting out its limit.
 */
import type { Page } from "playwright-core";

const watched = new WeakSet<Page>();
const crashed = new WeakSet<Page>();

export function watchCrashes(page: Page): void {
  if (watched.has(page)) return;
  watched.add(page);
  page.once("crash", () => crashed.add(page));
}

export function hasCrashed(page: Page): boolean {
  return crashed.has(page);
}

/** Settles like `work`, or rejects with `error()` as soon as the page's renderer crashes. */
export function failOnCrash<T>(page: Page, work: Promise<T>, error: () => Error): Promise<T> {
  if (crashed.has(page)) {
    work.catch(() => {});
    return Promise.reject(error());
  }
  return new Promise<T>((resolve, reject) => {
    const onCrash = () => reject(error());
    page.once("crash", onCrash);
    work.then(resolve, reject).finally(() => page.off("crash", onCrash));
  });
}
