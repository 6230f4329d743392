/**
 * A fork's first hour, on a clean copy of this checkout, with the commands docs/guide/job.md
 * gives: job.config.ts made another job (another page, an extract with a schema) turns no test
 * red (the template's recording is skipped, saying why); `npm start -- --record` against a
 * scripted provider standing in for the real one (at OPENAI_BASE_URL: the recorder cannot tell)
 * records it; the fork's tests then replay it and check its answer, the deployed handler's
 * included; and a change of the saved page's text that the extract reads fails the replay,
 * naming what changed.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyOfCheckout } from "../support/checkoutCopy.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { promptOf } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { useTempFolders } from "../support/tempFolders.js";

const run = promisify(execFile);
const tempFolder = useTempFolders();

const PRICES = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>This week's tea prices</title></head>
<body><h1>This week's tea prices</h1>
<table><tr><th>Tea</th><th>Price</th></tr>
<tr><td>Black tea</td><td>3.20</td></tr>
<tr><td>Green tea</td><td>4.50</td></tr></table></body></html>`;

/** The real provider's stand-in: it reads the price off the outline it is sent. */
const provider = openaiResponses((request) => {
  const line = promptOf(request)
    .split("\n")
    .find((l) => l.includes("Green tea"));
  const price = Number(/(\d+\.\d+)/.exec(line ?? "")?.[1] ?? Number.NaN);
  return { price };
});

let site: Server;
let kit: ModelKitServer;
let fork: string;
let pageUrl: string;

/** A command in the fork's folder, as its owner types it; exit code and output, never a throw. */
async function inFork(command: string[], env: Record<string, string> = {}) {
  const [file, ...args] = command;
  return run(file!, args, {
    cwd: fork,
    timeout: 150_000,
    maxBuffer: 32 * 1024 * 1024,
    // A shell of the owner's: no variable of this test run (vitest's own among them).
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? tmpdir(),
      TMPDIR: tmpdir(),
      NO_COLOR: "1",
      ...(process.env.DISPLAY ? { DISPLAY: process.env.DISPLAY } : {}),
      ...env,
    },
  }).then(
    (done) => ({ code: 0, out: `${done.stdout}\n${done.stderr}` }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      out: `${error.stdout}\n${error.stderr}`,
    }),
  );
}

const forkTests = (...files: string[]) =>
  inFork(["npx", "vitest", "run", "--reporter", "verbose", ...files]);

beforeAll(async () => {
  site = createServer((req, res) => {
    const found = req.url === "/prices.html";
    res.writeHead(found ? 200 : 404, { "content-type": "text/html" }).end(found ? PRICES : "");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/prices.html`;
  kit = await serveModelKit(provider);
  fork = await copyOfCheckout(join(tempFolder("wayfarer-fork-"), "my-job"));
  // Step 2 of the guide: job.config.ts made another job.
  writeFileSync(
    join(fork, "job.config.ts"),
    `import { z } from "zod";
import type { JobDefinition } from "./lib/job/definition.js";

export const job: Partial<JobDefinition> = {
  url: ${JSON.stringify(pageUrl)},
  extract: "the price of green tea",
  schema: z.object({ price: z.number() }),
  model: "openai/gpt-4.1-mini",
  cacheDir: "job-cache",
};
`,
  );
}, 120_000);
afterAll(async () => {
  await kit?.close();
  await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
});

describe("a fork makes the job its own", () => {
  it("edits job.config.ts: no test turns red, the template's recording says it is another job's", async () => {
    const tested = await forkTests("test/job/recordings.test.ts", "test/job/handler.test.ts");
    expect(tested.code, tested.out).toBe(0);
    expect(tested.out).toContain("recordings/job is a recording of another job");
    expect(tested.out).toContain(`its url was "https://news.ycombinator.com/"`);
  });

  it("records it, and its tests replay it to its answer; a changed price on the saved page fails naming the line", async () => {
    const recorded = await inFork(["npm", "start", "--", "--record"], {
      OPENAI_API_KEY: "sk-the-forks-own-key-0123456789",
      OPENAI_BASE_URL: kit.url,
    });
    expect(recorded.code, recorded.out).toBe(0);
    expect(recorded.out).toContain('{"ok":true,"data":"{\\"price\\":4.5}"');
    expect(kit.requests()).toHaveLength(1);

    // The guide's step 5 but the platform's build (test/deploy/platformBuild.test.ts runs that
    // on every copy of the checkout): the recording and the handler, with the fork's job.
    const tested = await forkTests("test/job/recordings.test.ts", "test/job/handler.test.ts");
    expect(tested.code, tested.out).toBe(0);
    expect(tested.out).toMatch(/✓ .*recordings\/job replays to its recorded answer/);
    expect(tested.out).toMatch(/✓ .*answers the cron's GET with the recorded answer/);
    expect(tested.out).not.toContain("a recording of another job");
    expect(tested.out).toMatch(/Tests +4 passed \(4\)/);

    // And by hand: the replay's progress lines and the recorded answer.
    const offline = await inFork(["npm", "run", "offline"]);
    expect(offline.code, offline.out).toBe(0);
    expect(offline.out).toContain("… extract: the price of green tea");
    expect(offline.out).toContain('{"ok":true,"data":"{\\"price\\":4.5}"');

    // The saved page, as the fork's owner would find and edit it.
    const saved = join(
      fork,
      "recordings",
      "job",
      "pages",
      new URL(pageUrl).host.replace(":", "_"),
      "prices.html",
    );
    writeFileSync(saved, readFileSync(saved, "utf8").replace("4.50", "5.25"));
    const changed = await forkTests("test/job/recordings.test.ts");
    expect(changed.code).toBe(1);
    expect(changed.out).toContain("cannot answer model call 1 (extract): the page outline changed");
    expect(changed.out).toMatch(/was "[^"]*4\.50[^"]*", is now "[^"]*5\.25/);
  }, 120_000);
});
