/**
 * A client that goes away while act, extract or observe waits on the model: its call stops at
 * once (the model request is cancelled), whether it asked for JSON or a stream, and the session
 * takes the next operation long before the call's own timeout would have freed it. And /end
 * while a call waits: never refused, and the call is answered at once.
 */
import { connect, type Socket } from "node:net";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { useModelServer } from "../support/llm/modelServer.js";
import { waitUntilGone } from "../support/processes.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService({ serverCache: false });

/** A model that answers nothing until its request is cancelled, and counts the cancellations. */
function stalledModel() {
  const seen = { asked: 0, cancelled: 0 };
  model.use(
    http.post("https://api.openai.com/v1/*", ({ request }) => {
      seen.asked++;
      return new Promise<Response>((resolve) => {
        request.signal.addEventListener("abort", () => {
          seen.cancelled++;
          resolve(HttpResponse.json({ error: "cancelled" }, { status: 499 }));
        });
      });
    }),
  );
  return seen;
}

/** A POST on a plain socket to the service: going away is destroying it. */
function rawCall(path: string, body: unknown, headers: Record<string, string>): Socket {
  const { port } = new URL(service.url);
  const text = JSON.stringify(body);
  const socket = connect(Number(port), "127.0.0.1");
  socket.on("error", () => {});
  socket.on("data", () => {});
  const head = Object.entries({
    host: `127.0.0.1:${port}`,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  }).map(([k, v]) => `${k}: ${v}`);
  socket.write(`POST ${path} HTTP/1.1\r\n${head.join("\r\n")}\r\n\r\n${text}`);
  return socket;
}

const calls = [
  {
    path: "act",
    body: { input: "click the buy button", options: { timeout: 60_000 } },
    stream: false,
  },
  {
    path: "extract",
    body: { instruction: "the product's price", options: { timeout: 60_000 } },
    stream: true,
  },
  {
    path: "observe",
    body: { instruction: "the buttons", options: { timeout: 60_000 } },
    stream: false,
  },
];

describe("a client that goes away", () => {
  for (const { path, body, stream } of calls) {
    it(`stops its ${path} (${stream ? "SSE" : "JSON"}) and the session takes the next operation`, async () => {
      const seen = stalledModel();
      const started = await service.call("POST", "/v1/sessions/start", {
        body: { modelName: "openai/gpt-4.1-mini" },
        headers: { "x-model-api-key": "sk-disconnect-key-123456" },
      });
      const id = started.body.data.sessionId as string;
      try {
        await service.call("POST", `/v1/sessions/${id}/navigate`, {
          body: { url: server.url("outline/shop.html") },
        });
        // A raw socket, destroyed to go away: msw sits in front of this process's fetch and
        // node:http, and an abort through its passthrough did not always close the connection.
        const caller = rawCall(`/v1/sessions/${id}/${path}`, body, {
          "x-wf-api-key": KEYS.alpha,
          "x-stream-response": String(stream),
        });
        // The call is waiting on the model.
        const asked = Date.now();
        while (seen.asked === 0 && Date.now() - asked < 10_000) {
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(seen.asked).toBe(1);
        const left = Date.now();
        caller.destroy();
        let status = 409;
        while (status === 409 && Date.now() - left < 20_000) {
          await new Promise((r) => setTimeout(r, 100));
          status = (await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} })).status;
        }
        expect(status).toBe(200);
        expect(seen.cancelled).toBe(1);
      } finally {
        await service.call("POST", `/v1/sessions/${id}/end`);
      }
    });
  }
});

describe("/end while a call waits on the model", () => {
  it("is never refused: the session ends with its browser, and the call is answered at once", async () => {
    const seen = stalledModel();
    const started = await service.call("POST", "/v1/sessions/start", {
      body: { modelName: "openai/gpt-4.1-mini" },
      headers: { "x-model-api-key": "sk-disconnect-key-123456" },
    });
    const id = started.body.data.sessionId as string;
    const pid = service.service.sessions.browserPidOf(id)!;
    await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: server.url("outline/shop.html") },
    });
    const acting = service.call("POST", `/v1/sessions/${id}/act`, {
      body: { input: "click the buy button", options: { timeout: 60_000 } },
    });
    const asked = Date.now();
    while (seen.asked === 0 && Date.now() - asked < 10_000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const ended = await service.call("POST", `/v1/sessions/${id}/end`);
    expect(ended.status).toBe(200);
    const act = await acting;
    // Stopped, not left to its 60 s timeout: the model request was cancelled.
    expect(seen.cancelled).toBe(1);
    expect(act.body.success).toBe(false);
    // Gone, not the service's own failure.
    expect(act.status).toBe(410);
    expect(act.body.message).toContain("ended while this operation ran");
    expect(await waitUntilGone(pid)).toEqual([]);
    expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(404);
  });
});
