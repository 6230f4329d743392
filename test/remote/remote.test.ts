/**
 * env "REMOTE" against the real service on 127.0.0.1: the same Client, its browser a session of
 * the service, reached over the CDP proxy; act, extract and observe over SSE; metrics from the
 * service's usage frames; close() ends the session and its browser.
 */
import { describe, expect, it } from "vitest";
import { Client } from "../../lib/index.js";
import { useEnvVars } from "../support/env.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { waitUntilGone } from "../support/processes.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

useEnvVars(() => ({ WAYFARER_API_URL: service.url }));

const remote = (extra: Record<string, unknown> = {}) =>
  new Client({
    env: "REMOTE",
    apiKey: KEYS.alpha,
    model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-remote-test-key-123456" },
    disablePino: true,
    verbose: 0,
    ...extra,
  });

describe('env "REMOTE"', () => {
  it("runs init → goto → act → extract → observe → close on a session of the service", async () => {
    model.use(shopModel());
    const lines: string[] = [];
    const client = remote({
      verbose: 2,
      logger: (l: { message: string }) => lines.push(l.message),
    });
    await client.init();
    const id = client.browserbaseSessionID!;
    expect(id).toBeTruthy();
    expect(client.browserbaseSessionURL).toMatch(new RegExp(`/dashboard/${id}#token=`));
    const pid = service.service.sessions.browserPidOf(id)!;
    try {
      const page = client.context.activePage()!;
      await page.goto(server.url("outline/shop.html"));
      const acted = await client.act("add black tea to the cart");
      expect(acted.success).toBe(true);
      expect(await page.locator("#cart").textContent()).toBe("Cart: black");
      const extracted = await client.extract("what the cart says");
      expect(extracted).toMatchObject({ extraction: "Cart: black", cacheStatus: "MISS" });
      const again = await client.extract("what the cart says");
      expect(again).toMatchObject({ extraction: "Cart: black", cacheStatus: "HIT" });
      const observed = await client.observe("the add to cart button of green tea");
      expect(observed[0]?.description).toContain("Green tea");
      const metrics = await client.metrics;
      expect(metrics.actPromptTokens).toBe(120);
      expect(metrics.extractPromptTokens).toBe(120);
      expect(lines.some((l) => l.includes("act: openai/gpt-4.1-mini answered"))).toBe(true);
      expect(JSON.stringify(lines)).not.toContain("sk-remote-test-key-123456");
    } finally {
      await client.close();
    }
    expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect(await waitUntilGone(pid)).toEqual([]);
  });
});
