/**
 * Folders a test file makes in the system's temp folder (a cache's, a job's), each removed once
 * the file's tests are done: a run leaves /tmp as it found it. Call at the file's top level.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

export function useTempFolders(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    // A browser that just closed may still be writing into one: retried, not left.
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
