/**
 * Every command docs/guide/job.md gives is run by a test, as written (or with only its port or
 * key changed): each one the guide shows is listed here with the test that runs it, and that test
 * holds the command. A command added to the guide without a test fails here. The calls of a
 * deployed function (on https://<your-project>.vercel.app, from a GitHub workflow) need a
 * deployment and are the one exception; what they call, /api/run, is tested through the
 * platform's build (test/deploy/platformBuild.test.ts) and the handler (test/api/run.test.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** Each command of the guide, and the test file that runs it with the text that shows it does. */
const RUN_BY: Record<string, { test: string; holds: string }> = {
  "npm ci && npm run demo": { test: "test/job/demo.test.ts", holds: '"demo.ts"' },
  "npm run demo": { test: "test/job/demo.test.ts", holds: '"demo.ts"' },
  "OPENAI_API_KEY=… npm start": { test: "test/job/commands.test.ts", holds: '["start"]' },
  "OPENAI_API_KEY=… npm start -- --record": {
    test: "test/job/forkJourney.test.ts",
    holds: '["npm", "start", "--", "--record"]',
  },
  // The three files it runs, each run by npm test (the fork's own job in the first two).
  "npm run test:job": {
    test: "package.json",
    holds:
      '"test:job": "vitest run test/job/recordings.test.ts test/job/handler.test.ts test/deploy/platformBuild.test.ts"',
  },
  "npm run offline": { test: "test/job/forkJourney.test.ts", holds: '["npm", "run", "offline"]' },
  "npm run dev": { test: "test/job/commands.test.ts", holds: '["run", "dev"]' },
  "npm run login": { test: "test/job/logIn.test.ts", holds: '["run", "login"' },
  "curl http://127.0.0.1:3000/api/run": {
    test: "test/job/commands.test.ts",
    holds: '"curl", ["-sS", `http://127.0.0.1:$' + "{port}/api/run`]",
  },
  "npm run offline -- --page test/job/own/page.html --model test/job/own/model.ts --prompts": {
    test: "test/job/offline.test.ts",
    holds: '"--page", "test/job/own/page.html", "--model", "test/job/own/model.ts"',
  },
};

/** The commands of the guide's sh blocks: one per line, comments and continuations joined. */
function guideCommands(): string[] {
  const text = readFileSync(join(ROOT, "docs/guide/job.md"), "utf8");
  const blocks = [...text.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map((m) => m[2]!);
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, " ").split("\n"))
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

describe("the job guide's commands", () => {
  it("are each run by a test", () => {
    const commands = guideCommands();
    expect(commands.length).toBeGreaterThan(5);
    const deployed = commands.filter((c) => c.includes(".vercel.app"));
    expect(deployed).toHaveLength(1);
    const untested = commands.filter((c) => !c.includes(".vercel.app") && !(c in RUN_BY));
    expect(untested, "commands with no test in RUN_BY").toEqual([]);
    for (const command of new Set(commands.filter((c) => c in RUN_BY))) {
      const { test, holds } = RUN_BY[command]!;
      expect(readFileSync(join(ROOT, test), "utf8"), `${test} runs ${command}`).toContain(holds);
    }
  });
});
