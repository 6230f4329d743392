/**
 * Record once, replay offline, as a fork does it from the command line: `npm start -- --record`
 * runs a job for real (here its provider is a scripted model over HTTP at OPENAI_BASE_URL, its
 * site a page on 127.0.0.1: the recorder cannot tell them from the real ones) and writes the
 * recording; `npm run offline` replays it with no key and nothing listening, and fails naming
 * what changed when the saved page or the job differs. No key, variable value or cookie value
 * may be in any file of the recording.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { idOfLine, promptOf } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { type StaticServer, startStaticServer } from "../support/staticServer.js";
import { useTempFolders } from "../support/tempFolders.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const JOB = "test/job/fixtures/greetJob.ts";
const MODEL_KEY = "sk-recording-test-key-5f2c9a1e77d04b3a";
const NAME = "ada-lovelace-1815";
const COOKIE = "cookie-value-never-recorded-4417";
const CRON_SECRET = "cron-secret-of-the-recording-test-0042";

const tempFolder = useTempFolders();
let site: StaticServer;
let model: ModelKitServer;
let recording: string;

/** The scripted provider: it reads the outline as a model would. */
const provider = openaiResponses((request) => {
  const prompt = promptOf(request);
  if (JSON.stringify(request.body).includes('"elements"')) {
    const id = idOfLine(prompt, "textbox");
    return {
      elements: id
        ? [{ elementId: id, description: "the name field", method: "fill", arguments: ["%NAME%"] }]
        : [],
    };
  }
  const heading = /heading "([^"]*)"/.exec(prompt)?.[1] ?? "";
  const greeting = /Hello, [^\n]*!/.exec(prompt)?.[0] ?? "";
  return { extraction: `${heading}: ${greeting}` };
});

/** A script of the job's command line (scripts/<name>.ts), in a process of its own. */
async function script(name: "start" | "offline", args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(JOB_|OPENAI_|WAYFARER_API_KEY$|ANTHROPIC_)/.test(k),
    ),
  ) as Record<string, string>;
  return run(
    process.execPath,
    ["--import", "tsx", join(ROOT, "scripts", `${name}.ts`), "--job", JOB, ...args],
    {
      cwd: ROOT,
      timeout: 90_000,
      env: {
        ...clean,
        JOB_URL: site.url("job/greet/index.html"),
        JOB_CACHE_DIR: tempFolder("wayfarer-recording-cache-"),
        ...env,
      },
    },
  ).then(
    (done) => ({ code: 0, ...done }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

const lastLine = (text: string) => JSON.parse(text.trim().split("\n").at(-1)!);

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

beforeAll(async () => {
  [site, model] = await Promise.all([startStaticServer(), serveModelKit(provider)]);
  recording = join(tempFolder("wayfarer-recordings-"), "greet");
  const recorded = await script("start", ["--record", "--recording", recording], {
    OPENAI_API_KEY: MODEL_KEY,
    OPENAI_BASE_URL: model.url,
    JOB_VAR_NAME: NAME,
    CRON_SECRET,
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  expect(recorded.stdout).toContain("recorded ");
  expect(lastLine(recorded.stdout)).toMatchObject({
    ok: true,
    data: "The greeting desk: Hello, %NAME%!",
  });
}, 120_000);
afterAll(async () => {
  await Promise.all([site?.close(), model?.close()]);
});

describe("npm start -- --record", () => {
  it("keeps the page with its script, style and fetched data, each model call and the answer", () => {
    const json = JSON.parse(readFileSync(join(recording, "recording.json"), "utf8"));
    expect(json.job).toEqual({
      url: site.url("job/greet/index.html"),
      act: "type %NAME% into the name field",
      extract: "the heading and the greeting",
      model: "openai/gpt-4.1-mini",
      variables: ["NAME"],
    });
    expect(json.modelCalls.map((c: { operation: string }) => c.operation)).toEqual([
      "act",
      "extract",
    ]);
    const kept = json.responses.map((r: { url: string }) => new URL(r.url).pathname);
    expect(kept).toEqual(
      expect.arrayContaining([
        "/job/greet/index.html",
        "/job/greet/greet.js",
        "/job/greet/greet.css",
        "/job/greet/greet.json",
      ]),
    );
    // What the model was sent, readable: the extract's outline shows the fetched heading.
    const extractPrompt = readFileSync(join(recording, json.modelCalls[1].prompt), "utf8");
    expect(extractPrompt).toContain("The greeting desk");
    expect(json.answer).toEqual({ data: "The greeting desk: Hello, %NAME%!" });
    // The act's action cache entry, ready to commit.
    expect(readdirSync(join(recording, "cache")).length).toBeGreaterThan(0);
  });

  it("holds no key, no variable's value, no cookie value and no secret of the environment", () => {
    const files = filesUnder(recording);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = readFileSync(file, "latin1");
      for (const secret of [MODEL_KEY, NAME, COOKIE, CRON_SECRET]) {
        expect(text.includes(secret), `${secret} in ${file}`).toBe(false);
      }
    }
  });
});

describe("npm run offline, replaying the recording", () => {
  it("gives the recorded answer with no key, no provider and no site", async () => {
    const replayed = await script("offline", ["--recording", recording], {
      // Nothing answers there: a request that left the browser or the process would fail.
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain("OFFLINE: ");
    expect(lastLine(replayed.stdout)).toMatchObject({
      ok: true,
      data: "The greeting desk: Hello, %NAME%!",
    });
  });

  it("--prompts prints what the model is sent, call by call", async () => {
    const replayed = await script("offline", ["--recording", recording, "--prompts"], {});
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain("act → openai/gpt-4.1-mini");
    expect(replayed.stdout).toContain("Instruction: the heading and the greeting");
    expect(replayed.stdout).toMatch(/\[\d+\] textbox "Your name"/);
  });

  it("fails naming the outline's changed line when the saved page changed what the extract reads", async () => {
    const copy = join(tempFolder("wayfarer-recording-edited-"), "greet");
    await run("cp", ["-r", recording, copy]);
    const json = JSON.parse(readFileSync(join(copy, "recording.json"), "utf8"));
    // The greeting, which only the extract reads (the act reads the page before typing).
    const greetJs = json.responses.find((r: { url: string }) => r.url.endsWith("greet.js"));
    const file = join(copy, greetJs.body);
    writeFileSync(file, readFileSync(file, "utf8").replace("Hello, ", "Welcome, "));
    const replayed = await script("offline", ["--recording", copy], {});
    expect(replayed.code).toBe(1);
    const { error } = lastLine(replayed.stderr);
    expect(error).toContain("cannot answer model call 2 (extract)");
    expect(error).toContain("the page outline changed");
    expect(error).toMatch(/line \d+ was "Hello, %NAME%!", is now "Welcome, %NAME%!"/);
  });

  it("does not replay a recording of another job, and says what differs", async () => {
    const replayed = await script("offline", ["--recording", recording], {
      JOB_EXTRACT: "the heading only",
    });
    expect(replayed.code).toBe(1);
    expect(lastLine(replayed.stderr).error).toContain(
      'is a recording of another job: its extract was "the heading and the greeting", the job now says "the heading only"',
    );
  });
});
