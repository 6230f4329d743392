/**
 * The two snapshot engines behind one small interface, each in its own browser: ours (the
 * Client) and the reference (Stagehand 3). Both start the same Chromium binary with the same
 * command line, so that the figures compare snapshot engines, not browsers or flags.
 *
 * Stagehand lives in bench/node_modules, which a clean clone does not have: it is imported
 * through a specifier held in a variable, so that tsc never resolves it, and typed by the few
 * local declarations below.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResolvedExecutable } from "../../lib/browser/executable.js";
import { buildCommandLine } from "../../lib/browser/launchArgs.js";
import { Client } from "../../lib/index.js";
import { LocalBrowserLaunchOptionsSchema } from "../../lib/options.js";

export const BENCH_DIR = join(import.meta.dirname, "..");
export const STAGEHAND = "@browserbasehq/stagehand";

const NAVIGATION_TIMEOUT_MS = 120_000;

export interface Engine {
  readonly name: string;
  goto(url: string): Promise<void>;
  /** The page text, or undefined when the engine has no snapshot to offer yet. */
  readonly snapshot: (() => Promise<string>) | undefined;
  evaluate<R>(expression: string): Promise<R>;
  browserVersion(): Promise<string>;
  close(): Promise<void>;
}

/** Memory one snapshot takes, in bytes: what the page's JS heap and Node's heap grew by. */
export interface SnapshotMemory {
  page: number;
  node: number;
}

/** The version field of a package installed under bench/node_modules. */
export async function installedVersion(name: string): Promise<string> {
  const file = join(BENCH_DIR, "node_modules", ...name.split("/"), "package.json");
  return (JSON.parse(await readFile(file, "utf8")) as { version: string }).version;
}

/**
 * Our launcher's own command line, less what each launcher must own (port, profile, and the
 * windowless start, which Stagehand cannot attach to).
 */
export async function sharedChromiumArgs(): Promise<string[]> {
  const profile = await mkdtemp(join(tmpdir(), "wayfarer-bench-"));
  try {
    const { args } = buildCommandLine({
      options: LocalBrowserLaunchOptionsSchema.parse({}),
      profile: "local",
      userDataDir: profile,
      noSandbox: process.getuid?.() === 0,
    });
    return args.filter(
      (a) =>
        !a.startsWith("--remote-debugging-port=") &&
        !a.startsWith("--user-data-dir=") &&
        a !== "--no-startup-window",
    );
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

export async function startWayfarer(
  executable: ResolvedExecutable,
  args: string[] = [],
): Promise<Engine & { snapshotMemory(): Promise<SnapshotMemory> }> {
  const client = new Client({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    localBrowserLaunchOptions: { executablePath: executable.path, headless: true, args },
  });
  await client.init();
  const page = client.context.activePage();
  if (!page) throw new Error("wayfarer: the client has no page after init()");
  return {
    name: "wayfarer",
    goto: async (url) => {
      await page.goto(url, { waitUntil: "load", timeout: NAVIGATION_TIMEOUT_MS });
    },
    snapshot: async () => (await client.extract()).pageText,
    // Heaps are collected first, and read right after one snapshot: what it allocated and still
    // holds (a collection during the walk would make this an undercount).
    snapshotMemory: async () => {
      const cdp = await page.playwrightPage.context().newCDPSession(page.playwrightPage);
      try {
        await cdp.send("HeapProfiler.collectGarbage");
        (globalThis as { gc?: () => void }).gc?.();
        const pageBefore = (await cdp.send("Runtime.getHeapUsage")).usedSize;
        const nodeBefore = process.memoryUsage().heapUsed;
        const text = (await client.extract()).pageText;
        const node = process.memoryUsage().heapUsed - nodeBefore;
        const pageAfter = (await cdp.send("Runtime.getHeapUsage")).usedSize;
        if (!text) throw new Error("empty snapshot");
        return { page: pageAfter - pageBefore, node };
      } finally {
        await cdp.detach();
      }
    },
    evaluate: (expression) => page.evaluate(expression),
    browserVersion: async () => client.context.playwrightContext.browser()?.version() ?? "unknown",
    close: () => client.close(),
  };
}

type LoadState = "load" | "domcontentloaded" | "networkidle";

interface StagehandPage {
  goto(url: string, options?: { waitUntil?: LoadState; timeoutMs?: number }): Promise<unknown>;
  evaluate<R>(expression: string): Promise<R>;
}

interface StagehandMetrics {
  totalPromptTokens: number;
  totalCompletionTokens: number;
  totalInferenceTimeMs: number;
}

interface StagehandInstance {
  init(): Promise<void>;
  close(): Promise<void>;
  extract(): Promise<{ pageText: string }>;
  readonly context: { pages(): StagehandPage[] };
  readonly metrics: Promise<StagehandMetrics>;
}

interface StagehandModule {
  Stagehand: new (options: {
    env: "LOCAL";
    verbose: 0 | 1 | 2;
    disablePino: boolean;
    disableAPI: boolean;
    localBrowserLaunchOptions: {
      executablePath: string;
      headless: boolean;
      args: string[];
      viewport: { width: number; height: number };
    };
  }) => StagehandInstance;
}

export interface ReferenceEngine extends Engine {
  /** Model usage Stagehand counted: all zero when extract() made no model call. */
  modelUsage(): Promise<StagehandMetrics>;
}

export async function startStagehand(
  executable: ResolvedExecutable,
  args: string[],
): Promise<ReferenceEngine> {
  const specifier = STAGEHAND;
  const { Stagehand } = (await import(specifier)) as StagehandModule;
  const stagehand = new Stagehand({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    // Only used with env BROWSERBASE; set anyway so that no code path reaches its hosted API.
    disableAPI: true,
    localBrowserLaunchOptions: {
      executablePath: executable.path,
      headless: true,
      // chrome-launcher puts its defaults and Stagehand's first and these last; Chromium keeps
      // the last value of a repeated switch, so ours win. That includes --disable-features,
      // which replaces Stagehand's "SitePerProcess": both browsers keep site isolation.
      args,
      viewport: { width: 1280, height: 720 },
    },
  });
  await stagehand.init();
  const page = stagehand.context.pages()[0];
  if (!page) {
    await stagehand.close();
    throw new Error("stagehand: no page after init()");
  }
  return {
    name: "stagehand",
    goto: async (url) => {
      await page.goto(url, { waitUntil: "load", timeoutMs: NAVIGATION_TIMEOUT_MS });
    },
    snapshot: async () => (await stagehand.extract()).pageText,
    evaluate: (expression) => page.evaluate(expression),
    browserVersion: async () =>
      /(?:Headless)?Chrome\/(\S+)/.exec(await page.evaluate<string>("navigator.userAgent"))?.[1] ??
      "unknown",
    modelUsage: () => stagehand.metrics,
    close: () => stagehand.close(),
  };
}
