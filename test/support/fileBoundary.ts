/**
 * Test files share a worker process (vitest.config.ts, isolate: false): what one file changes in
 * the process must not reach the next. Run before each file: at its end, the environment is put
 * back as the file found it, and a file that replaced process.env or left the process in another
 * folder fails.
 */
import { afterAll, expect } from "vitest";
import { restoreEnvAfterwards } from "./env.js";

// Playwright takes its artifacts folder from the temp dir once, as it loads: loaded here, with
// the process's own temp dir, before a file points TMPDIR at a folder it then removes.
await import("playwright-core");

/**
 * The process's own environment object, kept from the worker's first file on. A plain object
 * put in its place is read by nothing outside JavaScript: os.tmpdir() and child processes would
 * no longer see what later files set.
 */
const REAL_ENV = Symbol.for("wayfarer.test.realEnv");
const worker = globalThis as { [REAL_ENV]?: NodeJS.ProcessEnv };
worker[REAL_ENV] ??= process.env;
const realEnv = worker[REAL_ENV];

const restoreEnv = restoreEnvAfterwards();
const cwd = process.cwd();

afterAll(() => {
  const replaced = process.env !== realEnv;
  process.env = realEnv;
  restoreEnv();
  expect(replaced, "process.env replaced by another object: set or delete its keys instead").toBe(
    false,
  );
  expect(process.cwd(), "the working folder this test file left the process in").toBe(cwd);
});
