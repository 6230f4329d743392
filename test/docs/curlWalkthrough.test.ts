/**
 * docs/guide/service.md's "Try it with curl", run as written: its first block starts the service
 * (`npm run service`, on a free PORT, its model at the kit over HTTP by OPENAI_BASE_URL), its
 * second runs in bash with curl and jq (BASE and PAGE set, as the block lets a reader set them;
 * PAGE a local copy of a page like example.com's, the internet being out of reach), and each
 * step's answer is checked: start, navigate, observe, act, extract, a streamed extract from the
 * server cache, end. The scripted model reads each request's outline, as a real model would.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { idOfLine, instructionOf, promptOf } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { freePort } from "../support/ports.js";
import { within } from "../support/waiting.js";

const ROOT = join(import.meta.dirname, "..", "..");
const GUIDE = "docs/guide/service.md";
const MODEL_KEY = "sk-walkthrough-model-0123456789";
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

/** A page like example.com's, and the one its link leads to. */
const PAGES: Record<string, string> = {
  "/": `<!doctype html><title>Example Domain</title><h1>Example Domain</h1>
<p>This domain is for use in documentation examples without needing permission.</p>
<p><a href="/more">Learn more</a></p>`,
  "/more": `<!doctype html><title>About example domains</title><h1>About example domains</h1>
<p>Reserved for documentation.</p>`,
};

/**
 * The model, scripted for the walk-through's instructions on any page: observe → every link,
 * act → the first link, extract → the page's main heading (in the schema's shape).
 */
const walkthroughModel = openaiResponses((request) => {
  const prompt = promptOf(request);
  const instruction = instructionOf(request).toLowerCase();
  const lines = prompt.split("\n");
  const actions = JSON.stringify(request.body.text ?? request.body).includes('"elements"');
  if (actions) {
    const links = lines.filter((l) => /\blink "/.test(l));
    const chosen = instruction.includes("first") ? links.slice(0, 1) : links;
    return {
      elements: chosen.map((line) => ({
        elementId: idOfLine(line, "link"),
        description: line.trim(),
        method: "click",
        arguments: [],
      })),
    };
  }
  const heading = lines.find((l) => /\bheading "/.test(l))?.match(/heading "([^"]*)"/)?.[1] ?? "";
  return JSON.stringify(request.body).includes('"heading"') ? { heading } : { extraction: heading };
});

let site: Server | undefined;
let kit: ModelKitServer | undefined;
let service: ReturnType<typeof spawn> | undefined;
let dataDir = "";
afterEach(async () => {
  if (service?.pid && service.exitCode === null && service.signalCode === null) {
    const gone = new Promise((resolve) => service!.once("exit", resolve));
    process.kill(-service.pid, "SIGTERM");
    await within(25_000, "the service's exit", gone);
  }
  service = undefined;
  await kit?.close();
  kit = undefined;
  await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  site = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The environment without the settings this test's own run may carry. */
function cleanEnv(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  for (const name of ["WAYFARER_API_KEYS", "WAYFARER_ALLOW_HOSTS", "OPENAI_API_KEY", "BB_ENV"]) {
    delete env[name];
  }
  return env;
}

describe("the service guide's curl walk-through", () => {
  it("runs as written: start → navigate → observe → act → extract (also streamed) → end", async () => {
    const [startBlock, walkBlock, ...rest] = shellBlocks(GUIDE, "Try it with curl");
    expect(startBlock).toContain("npm run service");
    expect(walkBlock).toContain("/sessions/start");
    expect(rest).toEqual([]);

    site = createServer((req, res) => {
      const page = PAGES[req.url ?? ""];
      res.writeHead(page ? 200 : 404, { "content-type": "text/html" }).end(page ?? "");
    });
    await new Promise<void>((resolve) => site!.listen(0, "127.0.0.1", resolve));
    const pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    kit = await serveModelKit(walkthroughModel);
    dataDir = mkdtempSync(join(tmpdir(), "wayfarer-walkthrough-"));

    // The first block, as a reader runs it from the repository's root.
    const port = await freePort();
    service = spawn("bash", ["-c", startBlock!], {
      cwd: ROOT,
      detached: true,
      env: {
        ...cleanEnv(),
        PORT: String(port),
        OPENAI_BASE_URL: kit.url,
        WAYFARER_DATA_DIR: dataDir,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let printed = "";
    service.stdout!.on("data", (d: Buffer) => {
      printed += d.toString();
    });
    service.stderr!.on("data", (d: Buffer) => {
      printed += d.toString();
    });
    const listening = new Promise<void>((resolve, reject) => {
      const look = () => printed.includes("listening on") && resolve();
      service!.stdout!.on("data", look);
      service!.once("exit", (code) =>
        reject(new Error(`the service exited (${code}): ${printed}`)),
      );
    });
    await within(60_000, "the service's start", listening);
    expect(printed).toContain("API keys from WAYFARER_API_KEYS (projects: me)");

    // The second block, with the reader's BASE, PAGE and model key; bash stops at a failure.
    const { stdout } = await run("bash", ["-eo", "pipefail", "-c", walkBlock!], {
      cwd: ROOT,
      env: {
        ...cleanEnv(),
        BASE: `http://127.0.0.1:${port}`,
        PAGE: pageUrl,
        OPENAI_API_KEY: MODEL_KEY,
      },
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
    // Every model call carried the reader's model key, and no request went unanswered.
    const asked = kit.requests().map((r) => r.headers.get("authorization"));
    expect(asked.length).toBe(3);
    expect(new Set(asked)).toEqual(new Set([`Bearer ${MODEL_KEY}`]));
    expect(kit.unhandled()).toEqual([]);
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
