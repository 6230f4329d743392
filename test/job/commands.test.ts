/**
 * The job's commands as docs/guide/job.md gives them, run as a reader runs them (npm, in
 * processes of their own), on job.config.ts's job with its page and instructions set by JOB_*
 * (a page of the test's, so that any fork's job runs here) and a scripted model at
 * OPENAI_BASE_URL: `npm start` prints a progress line per step and the answer, or without a key
 * stops at once naming the variable; `npm run dev` serves /api/run on PORT, curl gets the
 * answer, and SIGTERM to npm ends it, its port freed and nothing left.
 */
import { execFile, spawn } from "node:child_process";
import { createConnection } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anyJobModel } from "../support/llm/anyJobModel.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { freePort } from "../support/ports.js";
import { liveTree, stillRunning } from "../support/processes.js";
import { type StaticServer, startStaticServer } from "../support/staticServer.js";
import { describeNeeding } from "../support/systemPackages.js";
import { useTempFolders } from "../support/tempFolders.js";
import { within } from "../support/waiting.js";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);
const tempFolder = useTempFolders();

let site: StaticServer;
let kit: ModelKitServer;
beforeAll(async () => {
  [site, kit] = await Promise.all([startStaticServer(), serveModelKit(anyJobModel())]);
});
afterAll(async () => {
  await Promise.all([site?.close(), kit?.close()]);
});

/** A reader's shell: none of this run's JOB_*, keys or base URLs; the job on the test's page. */
function shell(env: Record<string, string>): Record<string, string> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(JOB_|OPENAI_|ANTHROPIC_|WAYFARER_API_KEY$|CRON_SECRET$)/.test(k),
    ),
  ) as Record<string, string>;
  return {
    ...clean,
    JOB_URL: site.url("outline/shop.html"),
    JOB_ACT: "add black tea to the cart",
    JOB_EXTRACT: "the page's title",
    JOB_MODEL: "openai/gpt-4.1-mini",
    JOB_CACHE_DIR: tempFolder("wayfarer-commands-cache-"),
    NO_COLOR: "1",
    ...env,
  };
}

const withModel = () => ({
  OPENAI_API_KEY: "sk-commands-test-0123456789",
  OPENAI_BASE_URL: kit.url,
});

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("npm start", () => {
  it("runs the job once: a progress line per step saying what it does, then the answer", async () => {
    const { stdout } = await run("npm", ["start"], {
      cwd: ROOT,
      env: shell(withModel()),
      timeout: 90_000,
    });
    expect(stdout).toContain(`… goto: ${site.url("outline/shop.html")}`);
    expect(stdout).toContain("… act: add black tea to the cart");
    expect(stdout).toContain("… extract: the page's title");
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toMatchObject({ ok: true });
  });

  it("without the model's key stops at once, naming the variable and the offline demo", async () => {
    const failed = await run("npm", ["start"], { cwd: ROOT, env: shell({}), timeout: 60_000 }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain("OPENAI_API_KEY");
    expect(failed?.stderr).toContain("`npm run demo` runs the whole job offline");
  });
});

describeNeeding("curl")("npm run dev", () => {
  it("serves /api/run on PORT, curl gets the answer, and SIGTERM to npm ends it, nothing left", async () => {
    const port = await freePort();
    const npm = spawn("npm", ["run", "dev"], {
      cwd: ROOT,
      env: shell({ ...withModel(), PORT: String(port) }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let printed = "";
    npm.stdout.on("data", (d: Buffer) => {
      printed += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => npm.once("exit", resolve));
    await within(
      30_000,
      "npm run dev to listen",
      new Promise<void>((resolve) => {
        const look = () => printed.includes("/api/run on") && resolve();
        npm.stdout.on("data", look);
      }),
    );
    expect(printed).toContain(`/api/run on http://127.0.0.1:${port}/api/run`);
    // The guide's curl, on this port.
    const { stdout } = await run("curl", ["-sS", `http://127.0.0.1:${port}/api/run`], {
      timeout: 90_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ ok: true });
    const started = liveTree(npm.pid!);
    // npm, its shell's exec of tsx, and node under tsx.
    expect(started.length).toBeGreaterThanOrEqual(2);
    npm.kill("SIGTERM");
    await within(10_000, "npm run dev to exit after SIGTERM", exited);
    expect(await stillRunning(started, 5_000)).toEqual([]);
    expect(await listening(port)).toBe(false);
  });
});
