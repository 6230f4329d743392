/**
 * One timed call that starts on a quiet page: the previous call's click changed the DOM, and a
 * capture right after a change waits (up to 100 ms) for it to settle, which is not what the
 * benches measure.
 */
export async function timedOnQuietPage(work: () => Promise<unknown>): Promise<number> {
  await new Promise((r) => setTimeout(r, 150));
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
}
