/**
 * The existing v3 client, unchanged: `@browserbasehq/stagehand` 3.7.3 in its remote mode
 * (`env: "BROWSERBASE"`), pointed at this service by its own variables (STAGEHAND_API_URL,
 * BROWSERBASE_BASE_URL), runs init → goto → observe → act → extract → agent.execute → metrics
 * → close. Its model calls are the service's, answered by the model kit: by msw with the
 * service in this process, and over HTTP with the service in a process of its own.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { restoreEnvAfterwards } from "../support/env.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { KEYS, useService } from "../support/service.js";
import { type ServiceProcess, startService } from "../support/serviceProcess.js";
import { useStaticServer } from "../support/staticServer.js";
import { v3ClientRun } from "../support/v3Client.js";
import { within } from "../support/waiting.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

let restoreEnv: (() => void) | undefined;
beforeEach(() => {
  restoreEnv = restoreEnvAfterwards();
});
afterEach(() => restoreEnv?.());

describe("the v3 client (3.7.3) against the service", () => {
  it("init → goto → observe → act → extract → agent.execute → metrics → close", async () => {
    await v3ClientRun(
      server,
      service.url,
      (...handlers) => model.use(...handlers),
      async (id) => (await service.call("GET", `/v1/sessions/${id}`)).status,
    );
  });

  it("the same against `npm run service` in its own process, its model at the kit over HTTP", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-service-"));
    let kit: ModelKitServer | undefined;
    let child: ServiceProcess | undefined;
    try {
      kit = await serveModelKit();
      child = await startService({
        WAYFARER_DATA_DIR: dataDir,
        WAYFARER_API_KEYS: `alpha:${KEYS.alpha}`,
        WAYFARER_ALLOW_HOSTS: "127.0.0.1,localhost",
        OPENAI_BASE_URL: kit.url,
      });
      const base = child.url;
      await v3ClientRun(server, base, kit.use, async (id) => {
        const answer = await fetch(`${base}/v1/sessions/${id}`, {
          headers: { "x-wf-api-key": KEYS.alpha },
        });
        return answer.status;
      });
      // Every model call of the run reached the kit, and each was answered.
      expect(kit.requests().length).toBeGreaterThan(4);
      expect(kit.unhandled()).toEqual([]);
      child.child.kill("SIGTERM");
      expect(await within(25_000, "the service's exit", child.exited)).toBe(0);
    } finally {
      if (child && child.child.exitCode === null && child.child.signalCode === null) {
        child.child.kill("SIGKILL");
        await child.exited;
      }
      await kit?.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
