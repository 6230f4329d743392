/**
 * The existing v3 client, unchanged (`@browserbasehq/stagehand` 3.7.3 in its remote mode), run
 * against a service at a base URL: init → goto → observe → act → extract → agent.execute →
 * metrics → close, with the answers the model kit's shop and tea scripts give.
 */
import { Stagehand } from "@browserbasehq/stagehand";
import type { RequestHandler } from "msw";
import { expect } from "vitest";
import { shopModel } from "./llm/shopModel.js";
import { teaAgent, teaExecutionModel } from "./llm/teaAgent.js";
import { KEYS } from "./service.js";

/**
 * The whole client run against the service at `base`, its model answered by the handlers given
 * to `use`; `sessionStatus` says what GET /v1/sessions/{id} answers once the client closed.
 */
export async function v3ClientRun(
  server: { url(path: string): string },
  base: string,
  use: (...handlers: RequestHandler[]) => void,
  sessionStatus: (id: string) => Promise<number>,
  apiKey = KEYS.alpha,
): Promise<string> {
  process.env.STAGEHAND_API_URL = `${base}/v1`;
  process.env.BROWSERBASE_BASE_URL = base;
  use(shopModel());
  const stagehand = new Stagehand({
    env: "BROWSERBASE",
    apiKey,
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
    return id;
  } finally {
    if (!ended) await stagehand.close().catch(() => {});
  }
}
