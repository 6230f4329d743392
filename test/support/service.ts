/**
 * The HTTP service in this process, on 127.0.0.1 and a free port, with two projects' keys; the
 * model kit's msw answers its model calls as it does the library's. Closed after the file, with
 * every session's browser.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type ServiceConfig, serviceConfig } from "../../lib/service/config.js";
import { loadKeys } from "../../lib/service/keys.js";
import { buildService, type Service } from "../../lib/service/server.js";

export const KEYS = { alpha: "key-alpha-0123456789abcdef", beta: "key-beta-0123456789abcdef" };

export interface RunningService {
  url: string;
  /** The service's data folder (its own, removed after the file). */
  dataDir: string;
  service: Service;
  /** A request with project alpha's key (or `key`), JSON in and out. */
  call(
    method: string,
    path: string,
    init?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
}

export function useService(overrides: Partial<ServiceConfig> = {}): RunningService {
  const running = { url: "", service: undefined as unknown as Service } as RunningService;
  let dataDir = "";
  beforeAll(async () => {
    // A data folder of its own: keys and server-cache entries start empty for each file.
    dataDir = await mkdtemp(join(tmpdir(), "wayfarer-service-data-"));
    running.dataDir = dataDir;
    const config = {
      ...serviceConfig({ PORT: "0", WAYFARER_ALLOW_HOSTS: "127.0.0.1" }),
      dataDir,
      ...overrides,
    };
    const keys = await loadKeys(`alpha:${KEYS.alpha},beta:${KEYS.beta}`, config.dataDir, () => {});
    running.service = buildService(config, keys);
    running.url = await running.service.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await running.service?.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  running.call = async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    const key = init.key === undefined ? KEYS.alpha : init.key;
    if (key !== null) headers["x-wf-api-key"] = key;
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers,
      body:
        init.body === undefined
          ? undefined
          : typeof init.body === "string"
            ? init.body
            : JSON.stringify(init.body),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body, text };
  };
  return running;
}

/** The data-only SSE frames of a streamed answer, parsed. */
export function framesOf(text: string): any[] {
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => JSON.parse(f.slice("data: ".length)));
}
