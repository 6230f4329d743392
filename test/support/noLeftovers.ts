/**
 * After every test, in every test file: nothing this test process started is still running,
 * except processes a file keeps for all its tests (servers started in beforeAll, listed with
 * keepAcrossTests (keptProcesses.ts) and stopped in afterAll). Browsers are our children and lead their own
 * process groups, so this sees their helpers too.
 *
 * Files share their worker (isolate: false): this runs again for each file, which starts with
 * its own list of kept processes (and the egress guard's worker, egressHost.ts, lives as long as the
 * process). What a test left behind is reported by that test and then
 * killed, so it is not blamed on every test after it.
 */
import { afterEach, expect } from "vitest";
import { egressWorkerPid } from "../../lib/browser/egressHost.js";
import { keptProcesses } from "./keptProcesses.js";
import { liveDescendants } from "./processes.js";

keptProcesses.clear();

afterEach(async () => {
  const end = Date.now() + 5_000;
  // The egress guard's worker serves every service of this process for its whole life.
  const leftovers = () =>
    liveDescendants(process.pid).filter(
      (pid) => !keptProcesses.has(pid) && pid !== egressWorkerPid(),
    );
  let left = leftovers();
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    left = leftovers();
  }
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // ended meanwhile
    }
  }
  expect(left, "processes started by this test that are still running").toEqual([]);
});
