/**
 * The committed nginx configuration (deploy/nginx.conf), run by Debian's nginx in front of two
 * shared-mode instances: an SSE answer comes through frame by frame (the first frames arrive
 * while the model has not answered yet), and the CDP WebSocket of connectUrl works through it,
 * whichever instance nginx picks for it.
 */
import { http } from "msw";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLUSTER_KEYS, type Cluster, startCluster, v1 } from "../support/cluster.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { shopModel } from "../support/llm/shopModel.js";
import { type NginxServer, startNginx } from "../support/nginxServer.js";
import { freePort } from "../support/ports.js";
import { useStaticServer } from "../support/staticServer.js";
import { describeNeeding } from "../support/systemPackages.js";
import { gate, within } from "../support/waiting.js";

const pages = useStaticServer();
let kit: ModelKitServer;
let cluster: Cluster;
let nginx: NginxServer;

beforeAll(async () => {
  kit = await serveModelKit(shopModel());
  // The instances hand out links through nginx, which is not up yet: its port is chosen first.
  const port = await freePort();
  cluster = await startCluster(2, {
    OPENAI_BASE_URL: kit.url,
    WAYFARER_PUBLIC_URL: `http://127.0.0.1:${port}`,
  });
  nginx = await startNginx(
    cluster.instances.map((i) => i.url),
    port,
  );
}, 90_000);
afterAll(async () => {
  await nginx?.stop();
  await cluster?.stop();
  await kit?.close();
}, 60_000);

describeNeeding("redis-server", "nginx")("deploy/nginx.conf in front of two instances", () => {
  it("passes an SSE answer on frame by frame", async () => {
    const started = await v1(nginx.url, "POST", "/sessions/start", {
      modelName: "openai/gpt-4.1-mini",
    });
    const id = started.body.data!.sessionId!;
    await v1(nginx.url, "POST", `/sessions/${id}/navigate`, {
      url: pages.url("outline/shop.html"),
      options: {},
    });
    const atModel = gate();
    const answer = gate();
    let held = false;
    kit.use(
      http.post("https://api.openai.com/v1/responses", async () => {
        if (held) return undefined;
        held = true;
        atModel.open();
        await answer.opened;
        return undefined;
      }),
    );
    const response = await fetch(`${nginx.url}/v1/sessions/${id}/extract`, {
      method: "POST",
      headers: {
        "x-wf-api-key": CLUSTER_KEYS.alpha,
        "x-stream-response": "true",
        "content-type": "application/json",
      },
      body: JSON.stringify({ instruction: "what the cart says", options: {} }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    await within(20_000, "the model asked", atModel.opened);
    // The model has not answered: what came through was not held back by nginx.
    while (!text.includes('"connected"')) {
      const { value, done } = await within(5_000, "the first frames through nginx", reader.read());
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('"starting"');
    expect(text).not.toContain('"finished"');
    answer.open();
    for (;;) {
      const { value, done } = await within(20_000, "the rest of the stream", reader.read());
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const last = JSON.parse(text.trim().split("\n\n").at(-1)!.slice(6));
    expect(last).toMatchObject({
      type: "system",
      data: { status: "finished", result: { extraction: "Cart: empty" } },
    });
    await v1(nginx.url, "POST", `/sessions/${id}/end`);
  });

  it("carries the CDP WebSocket of connectUrl, whichever instance it reaches", async () => {
    const started = await v1(nginx.url, "POST", "/sessions/start", {});
    const id = started.body.data!.sessionId!;
    await v1(nginx.url, "POST", `/sessions/${id}/navigate`, {
      url: pages.url("outline/shop.html"),
      options: {},
    });
    // Round robin, one worker: two connections in a row reach both instances, owner and other.
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      urls.push((await v1(nginx.url, "GET", `/sessions/${id}`)).body.connectUrl as string);
    }
    for (const connectUrl of urls) {
      expect(connectUrl.startsWith(nginx.url.replace("http", "ws"))).toBe(true);
      const browser = await chromium.connectOverCDP(connectUrl);
      try {
        const page = browser.contexts()[0]!.pages()[0]!;
        expect(await page.evaluate(() => location.pathname)).toBe("/outline/shop.html");
      } finally {
        await browser.close();
      }
    }
    await v1(nginx.url, "POST", `/sessions/${id}/end`);
  });
});
