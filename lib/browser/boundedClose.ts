/** Steps of closing a browser that must not hold their caller. */

/** How long a step of closing may take. */
export const GRACEFUL_CLOSE_MS = 3_000;

/** A step of closing that must not hold the caller: it gets GRACEFUL_CLOSE_MS, errors ignored. */
export async function bounded(step: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    step.catch(() => {}),
    new Promise((resolve) => {
      timer = setTimeout(resolve, GRACEFUL_CLOSE_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}
