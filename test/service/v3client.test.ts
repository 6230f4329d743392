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
import { Stagehand } from "@browserbasehq/stagehand";
import type { RequestHandler } from "msw";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { restoreEnvAfterwards } from "../support/env.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { teaAgent, teaExecutionModel } from "../support/llm/teaAgent.js";
import { KEYS, useService } from "../support/service.js";
import { type ServiceProcess, startService } from "../support/serviceProcess.js";
import { useStaticServer } from "../support/staticServer.js";
import { within } from "../support/waiting.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

let restoreEnv: (() => void) | undefined;
beforeEach(() => {
  restoreEnv = restoreEnvAfterwards();
});
afterEach(() => restoreEnv?.());

/**
 * The whole client run against the service at `base`, its model answered by the handlers given
 * to `use`; `sessionStatus` says what GET /v1/sessions/{id} answers once the client closed.
 */
async function v3ClientRun(
  base: string,
  use: (...handlers: RequestHandler[]) => void,
  sessionStatus: (id: string) => Promise<number>,
): Promise<void> {
  process.env.STAGEHAND_API_URL = `${base}/v1`;
  process.env.BROWSERBASE_BASE_URL = base;
  use(shopModel());
  const stagehand = new Stagehand({
    env: "BROWSERBASE",
    apiKey: KEYS.alpha,
    projectId: "alpha",
    model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-v3-client-key-123456" },
    verbose: 0,
    disablePino: true,
  });
  let ended = false;
  try {
    await stagehand.init();
    const id = stagehand.browserbaseSessionID!;
    expect(id).toEqual(expect.any(String));
    const page = stagehand.context.pages()[0]!;
    await page.goto(server.url("outline/shop.html"));
    const observed = await stagehand.observe("the add to cart button of black tea");
    expect(observed[0]).toMatchObject({
      method: "click",
      description: "Add to cart, Black tea",
    });
    const acted = await stagehand.act(observed[0]!);
    expect(acted.success).toBe(true);
    const extracted = await stagehand.extract("what the cart says");
    // The 3.7 client reads the cache status header into its result.
    expect(extracted).toEqual({ extraction: "Cart: black", cacheStatus: "MISS" });
    await page.goto(server.url("agent/search.html"));
    // The agent's steps and its tools' calls, in front of the shop's answers.
    use(teaAgent(), teaExecutionModel());
    const result = await stagehand.agent().execute("Find the price of oolong tea");
    expect(result).toMatchObject({ success: true, message: "The price is $6.40" });
    const metrics = await stagehand.metrics;
    expect(metrics.observePromptTokens).toBeGreaterThan(0);
    expect(metrics.extractPromptTokens).toBeGreaterThan(0);
    await stagehand.close();
    ended = true;
    expect(await sessionStatus(id)).toBe(404);
  } finally {
    if (!ended) await stagehand.close().catch(() => {});
  }
}

describe("the v3 client (3.7.3) against the service", () => {
  it("init → goto → observe → act → extract → agent.execute → metrics → close", async () => {
    await v3ClientRun(
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
      await v3ClientRun(base, kit.use, async (id) => {
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
