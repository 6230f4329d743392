/**
 * The platform's own build, as a deployment runs it: the pinned Vercel CLI (test/deploy/vercel/,
 * 59.25.4, installed on first use from npm) runs `vercel build` on a clean copy of this checkout with local
 * project settings (no account, nothing sent anywhere), and the function it built is called as
 * the platform's Node launcher calls it, in a process of its own: its handler from its task
 * folder, the bundled Chromium and vercel.json's includeFiles in place, a scripted model on
 * 127.0.0.1. The job is job.config.ts's, on a page of the test's (JOB_URL, JOB_ACT, JOB_EXTRACT),
 * so the test holds for a fork's job too.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyOfCheckout } from "../support/checkoutCopy.js";
import { anyJobModel } from "../support/llm/anyJobModel.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { type StaticServer, startStaticServer } from "../support/staticServer.js";
import { useTempFolders } from "../support/tempFolders.js";

const run = promisify(execFile);
const CLI = join(import.meta.dirname, "vercel");
const VERCEL = join(CLI, "node_modules", ".bin", "vercel");
const SECRET = "cron-secret-for-the-platform-build-0123";
const LIMIT_BYTES = 250 * 1024 * 1024;

const tempFolder = useTempFolders();
let fn: string;
let site: StaticServer;
let model: ModelKitServer;

/**
 * The pinned CLI, installed the first time (about 20 s, 358 MB). Without a lockfile: the CLI
 * lists a native package per platform as optional, and npm writes a lockfile that `npm ci`
 * then refuses wherever the registry lacks another platform's (as this project's mirror does).
 */
async function cli(): Promise<string> {
  if (!existsSync(VERCEL)) {
    await run("npm", ["install", "--no-audit", "--no-fund", "--no-package-lock", "--prefix", CLI], {
      timeout: 240_000,
    });
  }
  return VERCEL;
}

/** A clean copy of the checkout, with local project settings as `vercel pull` writes them. */
async function projectCopy(): Promise<string> {
  const copy = await copyOfCheckout(join(tempFolder("wayfarer-platform-build-"), "repo"));
  // A project with no framework preset, as the platform's dashboard makes one for this repository.
  mkdirSync(join(copy, ".vercel"));
  writeFileSync(
    join(copy, ".vercel", "project.json"),
    JSON.stringify({ projectId: "prj_local", orgId: "team_local", settings: { framework: null } }),
  );
  return copy;
}

/** `vercel build` in `copy`; its output on failure. */
async function platformBuild(copy: string): Promise<string> {
  const vercel = await cli();
  const config = tempFolder("wayfarer-vercel-config-");
  try {
    await run(vercel, ["build", "--standalone", "-Q", config], {
      cwd: copy,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
      env: {
        PATH: process.env.PATH,
        HOME: config,
        XDG_CACHE_HOME: config,
        VERCEL_TELEMETRY_DISABLED: "1",
        NO_UPDATE_NOTIFIER: "1",
        // node_modules is in place (the platform's install step would make the same tree).
        VERCEL_INSTALL_COMPLETED: "1",
      },
    });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`vercel build failed:\n${`${stdout}\n${stderr}`.trim().slice(-3000)}`);
  }
  return join(copy, ".vercel", "output", "functions", "api", "run.func");
}

interface Invocation {
  status: number;
  headers: Record<string, string>;
  body: string;
  left: number[];
}

/** One call of the built function, in a process of its own with only the platform's variables. */
async function invoke(method: string, authorization = "-", body?: string): Promise<Invocation> {
  const { stdout } = await run(
    process.execPath,
    [
      join(import.meta.dirname, "invokeBuiltFunction.mjs"),
      fn,
      method,
      authorization,
      ...(body === undefined ? [] : [body]),
    ],
    {
      timeout: 90_000,
      env: {
        PATH: process.env.PATH,
        // Where the pack's Chromium was unpacked for this run: not unpacked again.
        TMPDIR: tmpdir(),
        VERCEL: "1",
        CRON_SECRET: SECRET,
        JOB_URL: site.url("outline/shop.html"),
        JOB_ACT: "add black tea to the cart",
        JOB_EXTRACT: "the page's title",
        JOB_MODEL: "openai/gpt-4.1-mini",
        OPENAI_API_KEY: "sk-platform-build-test-key-0123456789",
        OPENAI_BASE_URL: model.url,
      },
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Invocation;
}

beforeAll(async () => {
  [site, model] = await Promise.all([startStaticServer(), serveModelKit(anyJobModel())]);
  fn = await platformBuild(await projectCopy());
}, 420_000);
afterAll(async () => {
  await Promise.all([site?.close(), model?.close()]);
});

describe("vercel build of the repository as it is", () => {
  it("builds api/run as vercel.json says, the Chromium pack and job-cache/ inside, under 250 MB", async () => {
    const config = JSON.parse(readFileSync(join(fn, ".vc-config.json"), "utf8"));
    expect(config).toMatchObject({ handler: "api/run.js", maxDuration: 60, memory: 2048 });
    expect(existsSync(join(fn, "node_modules/@sparticuz/chromium/bin/chromium.br"))).toBe(true);
    expect(existsSync(join(fn, "job-cache"))).toBe(true);
    const { stdout } = await run("du", ["-sb", fn]);
    expect(Number(stdout.split("\t")[0])).toBeLessThan(LIMIT_BYTES);
    // The deployment publishes no source file: its static output is deploy/static/ alone.
    const statics = join(fn, "..", "..", "..", "static");
    expect(existsSync(join(statics, "robots.txt"))).toBe(true);
    expect(existsSync(join(statics, "job.config.ts"))).toBe(false);
  });

  it("answers the cron's GET with the secret: 200 {ok: true, data}, no browser left", async () => {
    const answer = await invoke("GET", `Bearer ${SECRET}`);
    expect(answer.status, answer.body).toBe(200);
    const body = JSON.parse(answer.body);
    expect(body).toEqual({ ok: true, data: expect.any(String) });
    expect(answer.headers["server-timing"]).toContain("extract;dur=");
    expect(answer.left).toEqual([]);
    // The model was asked, on 127.0.0.1: the act, then the extract.
    expect(model.requests().length).toBeGreaterThanOrEqual(2);
  });

  it("refuses a cron-shaped GET without the secret: 401, no browser started", async () => {
    const answer = await invoke("GET");
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({
      ok: false,
      error: expect.stringContaining("Bearer"),
    });
    expect(answer.left).toEqual([]);
  });

  it("refuses a POST body that is not JSON: 400", async () => {
    const answer = await invoke("POST", `Bearer ${SECRET}`, "{not json");
    expect(answer.status).toBe(400);
  });
});
