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
