/**
 * The existing v3 client, unchanged: `@browserbasehq/stagehand` 3.7.3 in its remote mode
 * (`env: "BROWSERBASE"`), pointed at this service by its own variables (STAGEHAND_API_URL,
 * BROWSERBASE_BASE_URL), runs init → goto → observe → act → extract → agent.execute → metrics
 * → close. Its model calls are the service's, answered by the model kit.
 */
import { Stagehand } from "@browserbasehq/stagehand";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { teaAgent, teaExecutionModel } from "../support/llm/teaAgent.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

const saved = { api: process.env.STAGEHAND_API_URL, bb: process.env.BROWSERBASE_BASE_URL };
beforeEach(() => {
  process.env.STAGEHAND_API_URL = `${service.url}/v1`;
  process.env.BROWSERBASE_BASE_URL = service.url;
});
afterEach(() => {
  process.env.STAGEHAND_API_URL = saved.api;
  process.env.BROWSERBASE_BASE_URL = saved.bb;
});

const shop = shopModel();

describe("the v3 client (3.7.3) against the service", () => {
  it("init → goto → observe → act → extract → agent.execute → metrics → close", async () => {
    model.use(shop);
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
      model.use(teaAgent(), teaExecutionModel());
      const result = await stagehand.agent().execute("Find the price of oolong tea");
      expect(result).toMatchObject({ success: true, message: "The price is $6.40" });
      const metrics = await stagehand.metrics;
      expect(metrics.observePromptTokens).toBeGreaterThan(0);
      expect(metrics.extractPromptTokens).toBeGreaterThan(0);
      await stagehand.close();
      ended = true;
      expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    } finally {
      if (!ended) await stagehand.close().catch(() => {});
    }
  });
});
