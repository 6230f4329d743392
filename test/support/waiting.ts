/**
 * Waits for tests that take turns with a handler or another process: every wait bounded and,
 * when it runs out, naming what it waited for.
 */

/** A promise and the function that settles it: one side waits, the other opens. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = () => resolve();
  });
  return { opened, open };
}

/** `promise`, or a failure naming what was awaited once `ms` have passed. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
