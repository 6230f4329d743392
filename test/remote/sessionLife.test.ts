/**
 * A remote session's life as the client sees it: keepAlive leaves it running and
 * browserbaseSessionID resumes it; an unknown id and a bad key fail init clearly with nothing
 * left; a service that is down at init, or goes away mid-run, or cuts a stream mid-answer, fails
 * the call with a clear error and no hang.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BrowserbaseSessionNotFoundError,
  Client,
  ServiceError,
  ServiceInitError,
  type V3Options,
} from "../../lib/index.js";
import { serviceConfig } from "../../lib/service/config.js";
import { loadKeys } from "../../lib/service/keys.js";
import { buildService } from "../../lib/service/server.js";
import { useEnvVars } from "../support/env.js";
import { failure } from "../support/failure.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { freePort } from "../support/ports.js";
import { waitUntilGone } from "../support/processes.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

useEnvVars(() => ({ WAYFARER_API_URL: service.url }));

const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-remote-life-123456" };
const remote = (extra: Partial<V3Options> = {}) =>
  new Client({
    env: "REMOTE",
    apiKey: KEYS.alpha,
    model: MODEL,
    disablePino: true,
    verbose: 0,
    ...extra,
  } as V3Options);

/** A stand-in service that answers /start and then cuts each stream after its first frames. */
async function cuttingService(): Promise<{
  url: string;
  streams: () => number;
  close(): Promise<void>;
}> {
  let streams = 0;
  const fake = createServer((req, res) => {
    if (req.url?.endsWith("/sessions/start")) {
      res.setHeader("content-type", "application/json");
      return res.end(JSON.stringify({ success: true, data: { sessionId: "s1", available: true } }));
    }
    streams++;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write('data: {"id":"1","type":"system","data":{"status":"starting"}}\n\n');
    setTimeout(() => res.destroy(), 50);
  });
  await new Promise<void>((done) => fake.listen(0, "127.0.0.1", () => done()));
  return {
    url: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
    streams: () => streams,
    close: () => new Promise((done) => fake.close(() => done())),
  };
}

describe("a remote session's life", () => {
  it("keepAlive leaves the session running; browserbaseSessionID resumes it, the page as it was", async () => {
    model.use(shopModel());
    const first = remote({ keepAlive: true });
    await first.init();
    const id = first.browserbaseSessionID!;
    await first.context.activePage()!.goto(server.url("outline/shop.html"));
    await first.act("add black tea to the cart");
    await first.close();
    expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(200);

    const again = remote({ browserbaseSessionID: id });
    await again.init();
    try {
      expect(again.browserbaseSessionID).toBe(id);
      expect(again.browserbaseSessionURL).toMatch(new RegExp(`/dashboard/${id}#token=`));
      const page = again.context.activePage()!;
      expect(page.url()).toBe(server.url("outline/shop.html"));
      expect(await page.locator("#cart").textContent()).toBe("Cart: black");
    } finally {
      await again.close();
    }
    // Without keepAlive, close() ends it.
    expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(404);
  });

  it("fails init for an unknown session id and for a bad key, leaving no session", async () => {
    const before = service.service.sessions.size;
    const unknown = await failure(remote({ browserbaseSessionID: "no-such-session" }).init());
    expect(unknown).toBeInstanceOf(ServiceInitError);
    expect((unknown as Error).cause).toBeInstanceOf(BrowserbaseSessionNotFoundError);
    const badKey = await failure(remote({ apiKey: "wrong-key-0123456789abcdef" }).init());
    expect(badKey).toBeInstanceOf(ServiceInitError);
    expect((badKey as Error).message).toContain("A valid API key is required");
    expect((badKey as Error).message).not.toContain("wrong-key-0123456789abcdef");
    expect(service.service.sessions.size).toBe(before);
  });

  it("says clearly that the service is down at init", async () => {
    process.env.WAYFARER_API_URL = `http://127.0.0.1:${await freePort()}`;
    try {
      const error = await failure(remote().init());
      expect(error).toBeInstanceOf(ServiceInitError);
      expect((error as Error).message).toContain("could not be reached");
      expect((error as Error).message).toContain("WAYFARER_API_URL");
    } finally {
      process.env.WAYFARER_API_URL = service.url;
    }
  });

  it("fails a call clearly when its service goes away mid-run, and close() still returns", async () => {
    model.use(shopModel());
    const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-remote-down-"));
    const config = {
      ...serviceConfig({ PORT: "0", WAYFARER_ALLOW_HOSTS: "127.0.0.1" }),
      dataDir,
    };
    const own = buildService(config, await loadKeys(`alpha:${KEYS.alpha}`, dataDir, () => {}));
    process.env.WAYFARER_API_URL = await own.app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const client = remote();
      await client.init();
      const pid = own.sessions.browserPidOf(client.browserbaseSessionID!)!;
      await client.context.activePage()!.goto(server.url("outline/shop.html"));
      await own.close();
      const error = await failure(client.act("add black tea to the cart"));
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as Error).message).toContain("could not be reached");
      await client.close();
      expect(await waitUntilGone(pid)).toEqual([]);
    } finally {
      process.env.WAYFARER_API_URL = service.url;
      await own.close().catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("reports a stream cut mid-answer as such, and does not send the call again", async () => {
    const fake = await cuttingService();
    process.env.WAYFARER_API_URL = fake.url;
    try {
      // No browser behind the stand-in: the call is made on the engine, as the client makes it.
      const client = remote();
      const engine = (client as unknown as { engine: RemoteInternals }).engine;
      engine.session = { id: "s1" };
      const error = await failure(engine.operations.extract({ instruction: "x", options: {} }));
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as Error).message).toMatch(/cut off mid-stream|ended without a result/);
      expect(fake.streams()).toBe(1);
    } finally {
      process.env.WAYFARER_API_URL = service.url;
      await fake.close();
    }
  });
});

/** What the stream test reaches into: the engine's session and operations. */
interface RemoteInternals {
  session: { id: string };
  operations: { extract(request: unknown): Promise<unknown> };
}
