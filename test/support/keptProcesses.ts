/**
 * Processes a test file keeps for all its tests (a redis-server, service instances, nginx,
 * started in beforeAll and stopped in afterAll): the after-each check (noLeftovers.ts) does
 * not count them as left behind. Plain module: benchmarks use the same helpers outside vitest.
 */
export const keptProcesses = new Set<number>();

export function keepAcrossTests(pid: number | undefined): void {
  if (pid !== undefined) keptProcesses.add(pid);
}
