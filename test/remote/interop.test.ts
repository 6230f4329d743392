/**
 * Our remote client against another v1 service: one that checks /start strictly (the protocol's
 * fields only), reads only `x-bb-api-key`, frames its stream with `event:` lines and sends no
 * usage, and has no `/stop`. Its browser is one the test starts. The client starts a session,
 * drives the page over CDP, extracts, and ends the session, using nothing of ours on the wire.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Client } from "../../lib/index.js";
import { type OwnBrowser, startOwnBrowser } from "../support/browserProcess.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const KEY = "foreign-key-0123456789abcdef";
const START_FIELDS = new Set([
  "modelName",
  "domSettleTimeoutMs",
  "verbose",
  "debugDom",
  "systemPrompt",
  "selfHeal",
  "waitForCaptchaSolves",
  "actionTimeoutMs",
  "browserbaseSessionCreateParams",
  "browserbaseSessionID",
]);

/** A v1 service of someone else's, as far as this client needs one. */
async function foreignService(browser: OwnBrowser) {
  const seen: string[] = [];
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const readBody = async (req: IncomingMessage) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const service = createServer(async (req, res) => {
    const body = await readBody(req);
    seen.push(`${req.method} ${req.url}`);
    if (req.headers["x-bb-api-key"] !== KEY)
      return json(res, 401, { success: false, message: "key" });
    if (req.method === "POST" && req.url === "/v1/sessions/start") {
      const extra = Object.keys(body).filter((k) => !START_FIELDS.has(k));
      if (extra.length) return json(res, 400, { success: false, message: `unknown: ${extra}` });
      return json(res, 200, { success: true, data: { sessionId: "f-1", available: true } });
    }
    if (req.method === "GET" && req.url === "/v1/sessions/f-1") {
      return json(res, 200, { id: "f-1", status: "RUNNING", connectUrl: browser.wsEndpoint });
    }
    if (req.method === "POST" && req.url === "/v1/sessions/f-1/extract") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const frame = (type: string, data: unknown) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ id: "x", type, data })}\n\n`);
      frame("system", { status: "starting" });
      frame("log", {
        status: "running",
        message: { category: "extract", message: "read it", level: 1 },
      });
      frame("system", { status: "finished", result: { extraction: "from the other service" } });
      return res.end();
    }
    if (req.method === "POST" && req.url === "/v1/sessions/f-1/end") {
      return json(res, 200, { success: true, data: {} });
    }
    json(res, 404, { success: false, message: "no such route" });
  });
  await new Promise<void>((done) => service.listen(0, "127.0.0.1", () => done()));
  return {
    url: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((done) => service.close(() => done())),
  };
}

let restore: () => void;
beforeEach(() => {
  restore = restoreEnvAfterwards();
});
afterEach(() => restore());

describe("another v1 service", () => {
  it("starts, drives the page over CDP, extracts and ends, with the protocol's fields only", async () => {
    const browser = await startOwnBrowser();
    const foreign = await foreignService(browser);
    process.env.WAYFARER_API_URL = foreign.url;
    const lines: string[] = [];
    try {
      const client = new Client({
        env: "BROWSERBASE",
        apiKey: KEY,
        model: "openai/gpt-4.1-mini",
        disablePino: true,
        verbose: 1,
        logger: (l) => lines.push(l.message),
      });
      await client.init();
      expect(client.browserbaseSessionID).toBe("f-1");
      const page = client.context.activePage()!;
      await page.goto(server.url("basic.html"));
      expect(await page.title()).not.toBe("");
      expect(await client.extract("anything")).toEqual({ extraction: "from the other service" });
      expect(lines).toContain("read it");
      await client.close();
      expect(foreign.seen).toEqual([
        "POST /v1/sessions/start",
        "GET /v1/sessions/f-1",
        "POST /v1/sessions/f-1/extract",
        "POST /v1/sessions/f-1/end",
      ]);
    } finally {
      await foreign.close();
      await browser.stop();
    }
  });
});
