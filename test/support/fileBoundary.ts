/**
 * Test files share a worker process (vitest.config.ts, isolate: false): what one file changes in
 * the process must not reach the next. Run before each file: at its end, the environment is put
 * back as the file found it, and a file that left the process in another folder fails.
 */
import { afterAll, expect } from "vitest";
import { restoreEnvAfterwards } from "./env.js";

// Playwright takes its artifacts folder from the temp dir once, as it loads: loaded here, with
// the process's own temp dir, before a file points TMPDIR at a folder it then removes.
await import("playwright-core");

const restoreEnv = restoreEnvAfterwards();
const cwd = process.cwd();

afterAll(() => {
  restoreEnv();
  expect(process.cwd(), "the working folder this test file left the process in").toBe(cwd);
});
