/**
 * Shared mode for tests: a real redis-server and several `npm run service` instances on
 * loopback, each in its own process and data folder, sharing it by REDIS_URL. Every instance's
 * model is the kit over HTTP. Stopped (SIGKILL where a test left one running) after each file.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { keepAcrossTests } from "./keptProcesses.js";
import { type RedisServer, startRedis } from "./redisServer.js";
import { type ServiceProcess, startService } from "./serviceProcess.js";
import { within } from "./waiting.js";

export const CLUSTER_KEYS = {
  alpha: "key-cluster-alpha-0123456789",
  gamma: "key-cluster-gamma-0123456789",
  /** Only the rate-limit test's: its count is its own. */
  delta: "key-cluster-delta-0123456789",
};

export interface Instance extends ServiceProcess {
  /** Its instance id, as it printed it. */
  id: string;
}

export interface Cluster {
  redis: RedisServer;
  instances: Instance[];
  /** Starts one more instance with the same settings. */
  add(extra?: Record<string, string>): Promise<Instance>;
  /** A Redis client of the test's own (to read the registry). */
  inspect(): Redis;
  stop(): Promise<void>;
}

export async function startCluster(count: number, env: Record<string, string>): Promise<Cluster> {
  const redis = await startRedis();
  const folders: string[] = [];
  const instances: Instance[] = [];
  const clients: Redis[] = [];
  const add = async (extra: Record<string, string> = {}) => {
    const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-instance-"));
    folders.push(dataDir);
    const running = await startService({
      WAYFARER_DATA_DIR: dataDir,
      WAYFARER_API_KEYS: Object.entries(CLUSTER_KEYS)
        .map(([project, key]) => `${project}:${key}`)
        .join(","),
      WAYFARER_ALLOW_HOSTS: "127.0.0.1,localhost",
      WAYFARER_INSTANCE_TTL_MS: "2000",
      REDIS_URL: redis.url,
      ...env,
      ...extra,
    });
    const id = running.printed().match(/instance ([a-z0-9]+),/)?.[1];
    if (!id) throw new Error(`no instance id in: ${running.printed()}`);
    const instance = { ...running, id };
    keepAcrossTests(running.child.pid);
    instances.push(instance);
    return instance;
  };
  try {
    for (let i = 0; i < count; i++) await add();
  } catch (error) {
    for (const i of instances) i.child.kill("SIGKILL");
    await redis.stop();
    throw error;
  }
  return {
    redis,
    instances,
    add,
    inspect() {
      const client = new Redis(redis.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
      client.on("error", () => {});
      clients.push(client);
      return client;
    },
    async stop() {
      for (const c of clients) c.disconnect();
      await Promise.all(
        instances.map(async (i) => {
          if (i.child.exitCode !== null || i.child.signalCode !== null) return;
          i.child.kill("SIGTERM");
          const code = await within(25_000, "an instance's exit", i.exited).catch(() => {
            i.child.kill("SIGKILL");
            return i.exited;
          });
          return code;
        }),
      );
      await redis.stop();
      await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
    },
  };
}

/** A v1 request to an instance with the project's key; the answer's status, headers and JSON. */
export async function v1(
  base: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: V1Answer }> {
  const response = await fetch(`${base}/v1${path}`, {
    method,
    headers: {
      "x-wf-api-key": CLUSTER_KEYS.alpha,
      "x-model-api-key": "sk-cluster-model-123456",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as V1Answer) : ({} as V1Answer),
  };
}

/** A session started on `base` (its project's key), its page at `page`; throws, saying why, when either fails. */
export async function sessionAt(base: string, page: string): Promise<string> {
  const started = await v1(base, "POST", "/sessions/start", { modelName: "openai/gpt-4.1-mini" });
  const id = started.body.data?.sessionId;
  if (!started.body.success || !id) throw new Error(`no session: ${JSON.stringify(started.body)}`);
  const went = await v1(base, "POST", `/sessions/${id}/navigate`, { url: page, options: {} });
  if (!went.body.success) throw new Error(`no page: ${JSON.stringify(went.body)}`);
  return id;
}

export interface V1Answer {
  success: boolean;
  message?: string;
  data?: {
    sessionId?: string;
    sessionUrl?: string;
    result?: unknown;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}
