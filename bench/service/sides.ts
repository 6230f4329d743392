/**
 * The servers a service benchmark compares, each started the same way for every section of
 * `npm run bench:service`: this tree's service ("now"), the service at BENCH_BEFORE=<commit>
 * ("at <commit>", unpacked by bench/beforeService.ts), and, with BENCH_REFERENCE, the reference
 * v1 server (see bench/referenceService.ts). A section asks each side the same requests and
 * prints its figure per side, same run.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServiceProcess, startService } from "../../test/support/serviceProcess.js";
import { unpackBefore } from "../beforeService.js";
import { startReference } from "../referenceService.js";
import { postV1, type V1Answer } from "../v1Post.js";

export const BENCH_KEY = "bench-key-0123456789abcdef";
export const BENCH_MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench-service" };

export interface ServiceSide {
  /** "now", "at <commit>" or "reference". */
  name: string;
  /** http://127.0.0.1:PORT */
  url: string;
  /** The server's own process: its browsers are its descendants. */
  pid: number;
  /** What every request to this side carries: its key and the model's key. */
  headers: Record<string, string>;
  /** The body of POST /v1/sessions/start for this side (a side may need more than the model). */
  startBody(): Record<string, unknown>;
  stop(): Promise<void>;
}

/** What every side is told: where the model kit answers, the bench's key, room for `sessions`. */
export interface SideSetup {
  modelUrl: string;
  sessions: number;
  /** More environment for the service (e.g. WAYFARER_WARM_BROWSERS). */
  env?: Record<string, string>;
}

const serviceEnv = (dataDir: string, setup: SideSetup): Record<string, string> => ({
  WAYFARER_DATA_DIR: dataDir,
  WAYFARER_API_KEYS: `bench:${BENCH_KEY}`,
  WAYFARER_ALLOW_HOSTS: "127.0.0.1",
  WAYFARER_MAX_SESSIONS: String(setup.sessions),
  WAYFARER_RATE_LIMIT: "1000000",
  // Every run asks the model.
  WAYFARER_SERVER_CACHE: "off",
  // No browser waiting ahead (a section that measures the pool sets it): its launches and
  // idle browser would count in the figures of the others.
  WAYFARER_WARM_BROWSERS: "0",
  OPENAI_BASE_URL: setup.modelUrl,
  ...setup.env,
});

/**
 * Chromium switches for the "now" side's sessions only (BENCH_NOW_ARGS, comma-separated): a
 * switch's effect measured against the same tree without it (BENCH_BEFORE=HEAD), same run.
 */
const NOW_ARGS = (process.env.BENCH_NOW_ARGS ?? "").split(",").filter(Boolean);

async function wayfarerSide(
  name: string,
  setup: SideSetup,
  main?: string,
  args: string[] = [],
): Promise<ServiceSide> {
  const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-bench-side-"));
  const env = serviceEnv(dataDir, setup);
  if (args.length) env.WAYFARER_ALLOW_LAUNCH_OPTIONS = "args";
  const service: ServiceProcess = await startService(env, main);
  return {
    name: args.length ? `${name} (${args.join(" ")})` : name,
    url: service.url,
    pid: service.child.pid!,
    headers: { "x-wf-api-key": BENCH_KEY, "x-model-api-key": BENCH_MODEL.apiKey },
    startBody: () => ({
      modelName: BENCH_MODEL.modelName,
      ...(args.length ? { browser: { type: "local", launchOptions: { args } } } : {}),
    }),
    async stop() {
      service.child.kill("SIGTERM");
      await service.exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** This tree's service. */
export const startNow = (setup: SideSetup) => wayfarerSide("now", setup, undefined, NOW_ARGS);

/** The service at BENCH_BEFORE, or undefined without it. */
export async function startBefore(setup: SideSetup): Promise<ServiceSide | undefined> {
  const commit = process.env.BENCH_BEFORE;
  if (!commit) return undefined;
  return wayfarerSide(`at ${commit}`, setup, unpackBefore(commit));
}

/** The reference v1 server at BENCH_REFERENCE (its built entry), or undefined without it. */
export const startReferenceSide = (setup: SideSetup) => startReference(setup, BENCH_MODEL);

/** Every side this run compares, "now" first. */
export async function startSides(setup: SideSetup): Promise<ServiceSide[]> {
  const sides = [await startNow(setup)];
  const before = await startBefore(setup);
  if (before) sides.push(before);
  // A reference that fails to start does not leave the sides already started running.
  const reference = await startReferenceSide(setup).catch(async (error: unknown) => {
    await Promise.all(sides.map((side) => side.stop()));
    throw error;
  });
  if (reference) sides.push(reference);
  return sides;
}

/** A JSON POST to a side's /v1 path, with its headers; the answer and the time it took. */
export async function postTo(side: ServiceSide, path: string, body: unknown): Promise<V1Answer> {
  return postV1(side.url, side.headers, path, body);
}

/** A new session of `side`, sent to `url`: its id. */
export async function openSession(side: ServiceSide, url: string): Promise<string> {
  const started = await postTo(side, "/sessions/start", side.startBody());
  const id = (started.json.data as { sessionId?: string } | undefined)?.sessionId;
  if (!id) throw new Error(`${side.name}: no session: ${JSON.stringify(started.json)}`);
  await postTo(side, `/sessions/${id}/navigate`, { url, options: {} });
  return id;
}
