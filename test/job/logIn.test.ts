/**
 * A job on a site behind a login (issue 45): `npm run login`'s function logs in once on a
 * loopback site with a session cookie and a login form (here the test types, as the person
 * would), saves the job's context, and the next scheduled run extracts the logged-in page
 * without typing anything. The context file holds no cookie value in clear.
 */

import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolveJob } from "../../lib/job/definition.js";
import { logInOnce } from "../../lib/job/logIn.js";
import { runJob } from "../../lib/job/runJob.js";
import { promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";

const model = useModelServer();
const SID = "sid-job-0e4f7a1c93b2";
let site: Server;
let origin: string;
let folder: string;
const posts: string[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "wayfarer-login-"));
  site = createServer((request, response) => {
    if (request.method === "POST" && request.url === "/login") {
      posts.push(request.url);
      // A session cookie: no expiry, gone with the browser unless the context keeps it.
      response.writeHead(303, { location: "/", "set-cookie": `sid=${SID}; Path=/; HttpOnly` });
      response.end();
      return;
    }
    response.setHeader("content-type", "text/html");
    const logged = (request.headers.cookie ?? "").includes(`sid=${SID}`);
    response.end(
      logged
        ? "<title>Account</title><h1>Hello, ada</h1><p>Balance: 42 coins</p>"
        : `<title>Log in</title><form method="post" action="/login"><input name="user" aria-label="User"><input name="password" type="password" aria-label="Password"><button>Log in</button></form>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site.close();
  await rm(folder, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.WAYFARER_CONTEXT_KEY;
});

/** Answers an extract with the outline's line that holds a balance, or says it is not there. */
const accountModel = openaiResponses((request) => {
  const line = promptOf(request)
    .split("\n")
    .find((l) => l.includes("Balance:"));
  return { extraction: line?.trim() ?? "no balance: the page asks to log in" };
});

describe("a job behind a login", () => {
  it("logs in once, and its next run extracts the logged-in page without typing", async () => {
    process.env.WAYFARER_CONTEXT_KEY = "c".repeat(64);
    const file = join(folder, "contexts", "job.ctx");
    await logInOnce({
      url: `${origin}/`,
      file,
      headless: true,
      until: async (page) => {
        const p = page.playwrightPage;
        await p.getByLabel("User").fill("ada");
        await p.getByLabel("Password").fill("hunter2-secret");
        await p.getByRole("button", { name: "Log in" }).click();
        await p.getByText("Hello, ada").waitFor();
      },
    });
    const stored = await readFile(file);
    expect(stored.includes(Buffer.from(SID))).toBe(false);
    expect(stored.includes(Buffer.from("hunter2-secret"))).toBe(false);
    expect(posts).toHaveLength(1);

    model.use(accountModel);
    const job = resolveJob(
      {
        url: `${origin}/`,
        extract: "the account's balance",
        model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-login-test-123456" },
        context: { file },
      },
      {},
    );
    const run = await runJob(job);
    expect(run.data).toContain("Balance: 42 coins");
    expect(posts).toHaveLength(1); // nothing was typed, no form sent

    // Without the context, the same run meets the login form.
    const without = await runJob({ ...job, context: undefined });
    expect(without.data).toContain("no balance");
  });

  it("npm run login opens the job's page, saves the context on Enter, and makes a key when none is set", async () => {
    const module = join(folder, "loginJob.ts");
    await writeFile(
      module,
      `export const job = { url: ${JSON.stringify(`${origin}/`)}, extract: "x" };\n`,
    );
    const file = join(folder, "cli", "job.ctx");
    const env = { ...process.env };
    delete env.WAYFARER_CONTEXT_KEY;
    const child = spawn(
      "npm",
      ["run", "login", "--", "--headless", "--job", module, "--file", file],
      {
        env,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      // The person is done as soon as the page is open.
      if (out.includes("press Enter")) child.stdin.end("\n");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code, out).toBe(0);
    expect(out).toMatch(/WAYFARER_CONTEXT_KEY=[0-9a-f]{64}/);
    expect(out).toContain(`Saved the login in ${file}`);
    expect((await stat(file)).size).toBeGreaterThan(0);
  });
});
