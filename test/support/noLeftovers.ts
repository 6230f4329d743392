/**
 * After every test, in every test file: nothing this test process started is still running.
 * Browsers are our children and lead their own process groups, so this sees their helpers too.
 */
import { afterEach, expect } from "vitest";
import { liveDescendants } from "./processes.js";

afterEach(async () => {
  const end = Date.now() + 5_000;
  let left = liveDescendants(process.pid);
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    left = liveDescendants(process.pid);
  }
  expect(left, "processes started by this test that are still running").toEqual([]);
});
