/**
 * dist/ made the build of the sources as they are, only when it is not already (~1 s when it
 * builds): once per test run as a global setup, so every service a test starts through
 * bin/wayfarer-service runs the built JavaScript a deployment runs, and again right before a
 * test about the build itself (others may edit lib/ in the meantime). A source changed after
 * that makes the entry fall back to tsx by itself: no test runs a stale build.
 */
import { stop } from "esbuild";
import { ensureBuilt } from "../../scripts/build.js";

export async function buildIfStale(): Promise<void> {
  try {
    await ensureBuilt();
  } finally {
    // esbuild's helper process would outlive the test otherwise.
    await stop();
  }
}

export const setup = buildIfStale;
