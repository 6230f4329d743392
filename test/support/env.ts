import { afterAll, beforeAll } from "vitest";

/**
 * Restores process.env after a test changes it. Reassigning `process.env` would cut it off from
 * the real environment (os.tmpdir() and child processes read that), so keys are put back one by one.
 */
export function restoreEnvAfterwards(): () => void {
  const saved = { ...process.env };
  return () => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    for (const [key, value] of Object.entries(saved)) process.env[key] = value;
  };
}

/** Every test of the enclosing describe launches with this profile (local or serverless). */
export function useBrowserProfile(profile: "local" | "serverless"): void {
  let restore: (() => void) | undefined;
  beforeAll(() => {
    restore = restoreEnvAfterwards();
    process.env.WAYFARER_BROWSER_PROFILE = profile;
  });
  afterAll(() => restore?.());
}

/** Every test of the file (or enclosing describe) runs with these variables, read at its start. */
export function useEnvVars(values: () => Record<string, string>): void {
  let restore: (() => void) | undefined;
  beforeAll(() => {
    restore = restoreEnvAfterwards();
    Object.assign(process.env, values());
  });
  afterAll(() => restore?.());
}
