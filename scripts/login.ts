/**
 * `npm run login`: opens the job's page (job.config.ts) in a browser window so that you log in
 * once; press Enter here when you are done, and the browser's profile is saved as the job's
 * context (`context.file`, default contexts/job.ctx), sealed with WAYFARER_CONTEXT_KEY. Commit
 * the file, set the same key on the deployment, and the scheduled runs start logged in.
 *
 *   npm run login                      # job.config.ts's page and context file
 *   npm run login -- --job jobs/other.ts --file contexts/other.ctx
 */
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { resolveJob } from "../lib/job/definition.js";
import { logInOnce } from "../lib/job/logIn.js";
import { baseJob } from "./jobCli.js";

const DEFAULT_FILE = "contexts/job.ctx";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { job: { type: "string" }, file: { type: "string" }, headless: { type: "boolean" } },
    strict: true,
  });
  const job = resolveJob(await baseJob(values.job), process.env);
  const file = values.file ?? job.context?.file ?? DEFAULT_FILE;
  if (!process.env.WAYFARER_CONTEXT_KEY) {
    const key = randomBytes(32).toString("hex");
    process.env.WAYFARER_CONTEXT_KEY = key;
    console.log(
      `No WAYFARER_CONTEXT_KEY: made one. Keep it secret, and set it wherever the job runs:\n  WAYFARER_CONTEXT_KEY=${key}`,
    );
  }
  await mkdir(dirname(file), { recursive: true });
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    await logInOnce({
      url: job.url,
      file,
      headless: values.headless === true,
      until: async () => {
        await terminal.question(
          `Log in on ${job.url} in the browser window, then press Enter here. `,
        );
      },
    });
  } finally {
    terminal.close();
  }
  console.log(
    `Saved the login in ${file}. In job.config.ts: context: { file: ${JSON.stringify(file)} }; commit the file (it is sealed), and set WAYFARER_CONTEXT_KEY where the job runs.`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
