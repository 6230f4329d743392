/**
 * docs/guide/service.md's "Try it with curl", run as written, offline as the guide says: its first
 * block starts the model kit (`npm run model-kit`: the scripted model and a page like
 * example.com's), its second the service (`npm run service`, its model at the kit), its third the
 * walk-through in bash with curl and jq (BASE, PAGE and OPENAI_API_KEY set as the guide says for
 * the kit), each on a free port instead of 4010 and 3000; each step's answer is checked: start,
 * navigate, observe, act, extract, a streamed extract from the server cache, end. The scripted
 * model reads each request's outline, as a real model would.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, expect, it } from "vitest";
import { freePort } from "../support/ports.js";
import { describeNeeding } from "../support/systemPackages.js";
import { within } from "../support/waiting.js";

const ROOT = join(import.meta.dirname, "..", "..");
const GUIDE = "docs/guide/service.md";
const _MODEL_KEY = "sk-walkthrough-model-0123456789";
const run = promisify(execFile);

/** The `sh` blocks of the guide's section `heading`, in order. */
function shellBlocks(file: string, heading: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, `${file} has a section "${heading}"`).toBeGreaterThan(-1);
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

let kit: ReturnType<typeof spawn> | undefined;
let service: ReturnType<typeof spawn> | undefined;
let dataDir = "";
/** Ends a process group started by a block: SIGTERM, and its exit awaited. */
async function stop(child: ReturnType<typeof spawn> | undefined, what: string): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  await within(25_000, what, gone);
}

afterEach(async () => {
  await stop(service, "the service's exit");
  service = undefined;
  await stop(kit, "the model kit's exit");
  kit = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Runs a block in bash from the repository's root, in a group of its own; its output so far. */
function startProcess(block: string, env: Record<string, string>) {
  const child = spawn("bash", ["-c", block], {
    cwd: ROOT,
    detached: true,
    env: { ...cleanEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  const collect = (d: Buffer) => {
    printed += d.toString();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const saying = (text: string, what: string) =>
    within(
      60_000,
      what,
      new Promise<void>((resolve, reject) => {
        const look = () => printed.includes(text) && resolve();
        child.stdout!.on("data", look);
        look();
        child.once("exit", (code) => reject(new Error(`${what}: exited (${code}): ${printed}`)));
      }),
    );
  return { child, printed: () => printed, saying };
}

/** The environment without the settings this test's own run may carry. */
function cleanEnv(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  for (const name of ["WAYFARER_API_KEYS", "WAYFARER_ALLOW_HOSTS", "OPENAI_API_KEY", "BB_ENV"]) {
    delete env[name];
  }
  return env;
}

describeNeeding("curl", "jq")("the service guide's curl walk-through", () => {
  it("runs as written: start → navigate → observe → act → extract (also streamed) → end", async () => {
    const [kitBlock, startBlock, walkBlock, ...rest] = shellBlocks(GUIDE, "Try it with curl");
    expect(kitBlock).toContain("npm run model-kit");
    expect(startBlock).toContain("npm run service");
    expect(walkBlock).toContain("/sessions/start");
    expect(rest).toEqual([]);
    dataDir = mkdtempSync(join(tmpdir(), "wayfarer-walkthrough-"));

    // The model kit, as the first block starts it, on a free port rather than 4010.
    const kitPort = await freePort();
    const kitRun = startProcess(kitBlock!, { PORT: String(kitPort) });
    kit = kitRun.child;
    await kitRun.saying("(Ctrl-C stops it)", "the model kit's start");
    const onKit = (block: string) => block.replaceAll("127.0.0.1:4010", `127.0.0.1:${kitPort}`);

    // The service, as the second block starts it, its model at the kit.
    const port = await freePort();
    const serviceRun = startProcess(onKit(startBlock!), {
      PORT: String(port),
      WAYFARER_DATA_DIR: dataDir,
    });
    service = serviceRun.child;
    await serviceRun.saying("listening on", "the service's start");
    expect(serviceRun.printed()).toContain("API keys from WAYFARER_API_KEYS (projects: me)");

    // The walk-through, with BASE and what the guide says to set for the kit.
    const offline = /\(with the model kit, any\s+value: `([^`]*)`\)/.exec(
      readFileSync(join(ROOT, GUIDE), "utf8"),
    )?.[1];
    expect(offline).toBe("OPENAI_API_KEY=offline PAGE=http://127.0.0.1:4010/site/");
    const settings = Object.fromEntries(
      onKit(offline!)
        .split(" ")
        .map((pair) => pair.split("=", 2) as [string, string]),
    );
    const { stdout } = await run("bash", ["-eo", "pipefail", "-c", walkBlock!], {
      cwd: ROOT,
      env: { ...cleanEnv(), BASE: `http://127.0.0.1:${port}`, ...settings },
      timeout: 120_000,
    });
    const out = stdout.split("\n");
    const id = stdout.match(/^session ([\w-]+)$/m)?.[1];
    expect(id).toBeDefined();
    // navigate, then end: the two compact JSON lines.
    const compact = out.filter((l) => l.startsWith('{"success"')).map((l) => JSON.parse(l));
    expect(compact).toHaveLength(2);
    expect(compact[0]).toMatchObject({ success: true });
    expect(compact[1]).toEqual({ success: true, data: {} });
    // observe: the page's one link, as an Action.
    const observed = firstJsonAfter(stdout, "[");
    expect(observed).toEqual([
      expect.objectContaining({
        method: "click",
        description: expect.stringContaining("Learn more"),
      }),
    ]);
    // act: clicked; extract: the heading of the page the link led to, in the schema's shape.
    expect(stdout).toContain('"success": true');
    expect(stdout).toContain('"heading": "About example domains"');
    // Streamed: data frames, the last one finished, from the cache.
    const frames = out.filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
    expect(frames.map((f) => f.data?.status)).toEqual(
      expect.arrayContaining(["starting", "connected", "finished"]),
    );
    const finished = frames.find((f) => f.data?.status === "finished");
    expect(finished.data).toMatchObject({
      result: { heading: "About example domains" },
      cacheHit: true,
    });
    // "About example domains" is the kit's own second page: its link was followed there.
  });
});

/** The first JSON value printed that starts with `open` on a line of its own. */
function firstJsonAfter(text: string, open: string): unknown {
  const start = text.indexOf(`\n${open}\n`);
  if (start === -1) return undefined;
  const close = open === "[" ? "]" : "}";
  const end = text.indexOf(`\n${close}\n`, start);
  return JSON.parse(text.slice(start + 1, end + 2));
}
