/**
 * The reference v1 server (the open-source Stagehand server 3.6.1, built outside this tree:
 * bench/README.md, "The reference side") as a bench side: `node <entry>` on 127.0.0.1 and a
 * port of its choosing, the same Chromium our service starts, its model calls sent to the
 * model kit by OPENAI_BASE_URL, so it runs with no network at all.
 *
 * What its source decides, and why each setting here:
 * - It listens on 0.0.0.0, fixed in its server.ts; a one-line preload moves that to 127.0.0.1
 *   so a bench opens nothing to the network (PORT=0: the port it prints is read back).
 * - NODE_ENV=production: without it, it logs every line at trace level; production is info.
 * - BB_ENV=local, and sessions started with `browser.type: "local"`: a local browser, never a
 *   Browserbase session; Browserbase's API is called only for the other type.
 * - Its sessions' Chromiums are children of its process (chrome-launcher, and one shutdown
 *   supervisor per session, a Node process): CPU and memory sum over its descendants.
 * - SIGTERM waits 10 s before closing anything: stop() kills the tree instead (no figure reads
 *   the stop), and removes the temporary folder its browser profiles were put in.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { resolveExecutable } from "../lib/browser/executable.js";
import { liveDescendants } from "../test/support/processes.js";
import type { ServiceSide, SideSetup } from "./service/sides.js";

const STARTUP_MS = 30_000;
const KEPT_OUTPUT = 16_384;

/** The flags of the issue's runs, on top of the reference's own and chrome-launcher's. */
const CHROMIUM_ARGS = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Its listen({ host: "0.0.0.0" }) made 127.0.0.1, before its code loads. */
const LOOPBACK_ONLY = `data:text/javascript,${encodeURIComponent(
  'import net from "node:net";const listen=net.Server.prototype.listen;' +
    "net.Server.prototype.listen=function(o,...rest){" +
    'if(o&&typeof o==="object"&&o.host==="0.0.0.0")o={...o,host:"127.0.0.1"};' +
    "return listen.call(this,o,...rest)}",
)}`;

/**
 * The server's entry from BENCH_REFERENCE: a .js/.mjs file as is; a folder: its server.js, its
 * dist/server.js, or (the monorepo's root) packages/server/dist/server.js.
 */
export function referenceEntry(value: string): string {
  const path = resolve(value);
  if (!existsSync(path)) {
    throw new Error(`BENCH_REFERENCE: ${path} does not exist (expected the built server's entry)`);
  }
  if (!statSync(path).isDirectory()) return path;
  const candidates = ["server.js", "dist/server.js", "packages/server/dist/server.js"];
  const found = candidates.map((c) => join(path, c)).find((c) => existsSync(c));
  if (!found) {
    throw new Error(
      `BENCH_REFERENCE: ${path} is a folder without ${candidates.join(", ")} (expected the built reference server: bench/README.md, "The reference side")`,
    );
  }
  return found;
}

/** The reference side, or undefined without BENCH_REFERENCE. */
export async function startReference(
  setup: SideSetup,
  model: { modelName: string; apiKey: string },
): Promise<ServiceSide | undefined> {
  const value = process.env.BENCH_REFERENCE;
  if (!value) return undefined;
  const entry = referenceEntry(value);
  // The binary our service would launch (CHROME_PATH, else the pack), with the libraries it needs.
  const chromium = await resolveExecutable({ headful: false });
  const scratch = await mkdtemp(join(tmpdir(), "wayfarer-bench-reference-"));
  const child = spawn(process.execPath, ["--import", LOOPBACK_ONLY, entry], {
    // Only what it needs: no key or endpoint of this shell reaches it.
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? scratch,
      NODE_ENV: "production",
      BB_ENV: "local",
      PORT: "0",
      OPENAI_BASE_URL: setup.modelUrl,
      // Its browser profiles (os.tmpdir()/stagehand-v3) and Chromium's temporary files.
      TMPDIR: scratch,
      ...chromium.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-KEPT_OUTPUT);
  };
  // Read to the end whoever waits: a full pipe would stall its logger.
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  let stopping = false;
  child.once("exit", (code, signal) => {
    if (!stopping) {
      process.stderr.write(`reference server exited (${code ?? signal}):\n${output}\n`);
    }
  });

  const stop = async () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      killTree(child);
      await exited;
    }
    await rm(scratch, { recursive: true, force: true });
  };

  let url: string;
  try {
    url = await readyUrl(child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    name: "reference",
    url,
    pid: child.pid!,
    // It checks no key of its own; the model's key travels as a header.
    headers: { "x-model-api-key": model.apiKey },
    startBody: () => ({
      modelName: model.modelName,
      browser: {
        type: "local",
        launchOptions: {
          headless: true,
          executablePath: chromium.path,
          // As root, Chromium refuses its sandbox; our service turns it off there too.
          args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), ...CHROMIUM_ARGS],
        },
      },
    }),
    stop,
  };
}

/** Its address once it listens, after /readyz (set after listening) answers 200. */
async function readyUrl(child: ChildProcess, output: () => string): Promise<string> {
  const deadline = Date.now() + STARTUP_MS;
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  let url: string | undefined;
  while (Date.now() < deadline && !gone()) {
    url ??= /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1];
    if (url) {
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) return url;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(
    `the reference server ${gone() ? "exited" : `was not ready in ${STARTUP_MS / 1000} s`}${url ? ` (listening at ${url})` : ""}: ${output()}`,
  );
}

/** The server and everything under it (its Chromiums and their process groups, supervisors). */
function killTree(child: ChildProcess): void {
  const pids = [child.pid!, ...liveDescendants(child.pid!)];
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
