/**
 * `npm test`: the type check and the linter beside the test files rather than before them. The
 * files keep two cores busy about two thirds of the time; the checks need one core for about
 * 30 s, which they find in that third. What the checks print is held back and shown after the
 * files' own report, where it is not lost; any part that fails fails the run. Arguments go to
 * vitest (`npm test -- test/job/`).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

const bin = (name: string) => join(import.meta.dirname, "..", "node_modules", ".bin", name);

interface Finished {
  name: string;
  code: number;
  output: string;
}

/** Runs a command with its output held back, and resolves when it has ended. */
function quietly(name: string, command: string, args: string[]): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.once("error", (error) => resolve({ name, code: 1, output: String(error) }));
    child.once("close", (code, signal) =>
      resolve({ name, code: code ?? (signal ? 1 : 0), output }),
    );
  });
}

function loudly(command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit" });
    child.once("error", () => resolve(1));
    child.once("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const checks = Promise.all([
  quietly("tsc --noEmit", bin("tsc"), ["--noEmit"]),
  quietly("biome check .", bin("biome"), ["check", "."]),
]);
const suite = await loudly(bin("vitest"), ["run", ...process.argv.slice(2)]);
let failed = suite !== 0;
for (const check of await checks) {
  const verdict = check.code === 0 ? "passed" : `FAILED (exit ${check.code})`;
  if (check.code !== 0) {
    failed = true;
    process.stdout.write(`\n${check.output.trimEnd()}\n`);
  }
  console.log(`${check.name}: ${verdict}`);
}
process.exit(failed ? 1 : 0);
