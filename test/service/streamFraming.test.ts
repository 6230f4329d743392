/**
 * One stream, read by each kind of v1 client exactly as it parses: the 3.7 TypeScript client
 * (data-only frames) and the generated SDKs (Python, Go, Java: frames named by an `event:` line).
 * Each rule below is the client's own, applied to the real service's bytes. A stream whose model
 * is slow keeps talking (SSE comments, and at verbose 1 log frames) and both still read it.
 */
import { http } from "msw";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { frameText } from "../../lib/service/answers.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

/** The 3.7 client (lib/v3/api.js `execute`): split on blank lines, skip what does not start with `data: `, parse the rest whole; an error frame throws. */
function readAs37(text: string): { frames: any[]; thrown?: string } {
  const frames: any[] = [];
  const chunks = text.split("\n\n");
  chunks.pop();
  for (const chunk of chunks) {
    if (!chunk.startsWith("data: ")) continue;
    const frame = JSON.parse(chunk.slice(6));
    if (frame.type === "system" && frame.data.status === "error") {
      return { frames, thrown: frame.data.error };
    }
    frames.push(frame);
    if (frame.type === "system" && frame.data.status === "finished") break;
  }
  return { frames };
}

/**
 * The generated SDKs' decoder (Stainless `_streaming.py`): chunks end at a blank line in any of
 * the three line endings, lines split on \r\n, \n or \r; only events named starting, connected,
 * running or finished are yielded, `error` raises, an unnamed event is skipped.
 */
function readAsStainless(text: string): { frames: any[]; raised?: any } {
  const frames: any[] = [];
  let event: string | undefined;
  let data: string[] = [];
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line === "") {
      if (event === "error") return { frames, raised: JSON.parse(data.join("\n")) };
      if (event && ["starting", "connected", "running", "finished"].includes(event)) {
        frames.push(JSON.parse(data.join("\n")));
      }
      event = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const at = line.indexOf(":");
    const field = at === -1 ? line : line.slice(0, at);
    let value = at === -1 ? "" : line.slice(at + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return { frames };
}

/** What the Python SDK 3.19 sends on every request (beside its keys). */
const STAINLESS = {
  "x-language": "python",
  "x-sdk-version": "3.19.5",
  "X-Stainless-Lang": "python",
  "X-Stainless-Package-Version": "3.19.5",
  "X-Stainless-Async": "false",
  "x-stainless-retry-count": "0",
};
const TYPESCRIPT_37 = { "x-language": "typescript", "x-sdk-version": "3.7.3" };

/** Holds every model request until `open()` is called. */
function gatedModel(model: ReturnType<typeof useModelServer>) {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  model.use(
    http.post("https://api.openai.com/v1/*", async () => {
      await gate;
      return undefined as unknown as Response;
    }),
    shopModel(),
  );
  return { open };
}

/** A streamed answer read as it comes: `until` waits for what the text so far must show. */
function reading(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const state = { text: "" };
  const until = async (seen: (text: string) => boolean) => {
    while (!seen(state.text)) {
      const { value, done } = await reader.read();
      if (done) break;
      state.text += decoder.decode(value, { stream: true });
    }
    return state.text;
  };
  return { until, all: () => until(() => false) };
}

const MODEL_KEY = "sk-stream-framing-key-123456";
const comments = (text: string) => [...text.matchAll(/^: (.*)$/gm)].map((m) => m[1] ?? "");

describe("stream framing", () => {
  // A short keep-alive: every stream below also carries comments.
  const service = useService({ streamKeepAliveMs: 150 });
  const pages = useStaticServer();
  const model = useModelServer();
  let id = "";
  beforeEach(async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    id = started.body.data.sessionId;
  });
  afterEach(async () => {
    await service.call("POST", `/v1/sessions/${id}/end`);
  });

  const streamed = (path: string, body: unknown, headers: Record<string, string>) =>
    service.call("POST", `/v1/sessions/${id}/${path}`, {
      body,
      headers: { ...headers, "x-stream-response": "true" },
    });

  it("gives each client every event once, in its own framing, and the same events to both", async () => {
    await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: pages.url("outline/shop.html") },
    });
    const asked = { options: {} };
    const forTs = await streamed("extract", asked, TYPESCRIPT_37);
    const forSdk = await streamed("extract", asked, STAINLESS);
    const plain = await streamed("extract", asked, {});
    for (const answer of [forTs, forSdk, plain]) {
      expect(answer.headers.get("content-type")).toBe("text/event-stream");
    }
    // The 3.7 client and a caller that names no client get the reference's data-only frames.
    const ts = readAs37(forTs.text);
    expect(ts.thrown).toBeUndefined();
    expect(ts.frames.map((f) => f.data.status).slice(0, 2)).toEqual(["starting", "connected"]);
    expect(ts.frames.at(-1).data.status).toBe("finished");
    expect(ts.frames.at(-1).data.result.pageText).toContain("Add to cart");
    // Every frame is data, or a comment (the keep-alive) that no client reads.
    expect(
      plain.text
        .split("\n\n")
        .filter(Boolean)
        .every((f) => f.startsWith("data: ") || f.startsWith(": ")),
    ).toBe(true);
    // The generated SDK gets named frames: every one, none twice.
    const sdk = readAsStainless(forSdk.text);
    expect(sdk.raised).toBeUndefined();
    const statuses = (frames: any[]) => frames.map((f) => `${f.type}:${f.data.status}`);
    expect(statuses(sdk.frames)).toEqual(statuses(ts.frames));
    expect(new Set(sdk.frames.map((f) => f.id)).size).toBe(sdk.frames.length);
    expect(sdk.frames.at(-1).data.result.pageText).toContain("Add to cart");
    // Each frame's name is its status (a log frame is running).
    const names = [...forSdk.text.matchAll(/^event: (.*)$/gm)].map((m) => m[1]);
    expect(names).toEqual(sdk.frames.map((f) => (f.type === "log" ? "running" : f.data.status)));
    // Why the framing follows the client: each one reads nothing of the other's.
    expect(readAs37(forSdk.text).frames).toEqual([]);
    expect(readAsStainless(forTs.text).frames).toEqual([]);
  });

  it("raises a failed call in both clients, as their own error", async () => {
    const refused = { url: "http://169.254.169.254/latest/meta-data/" };
    const ts = readAs37((await streamed("navigate", refused, TYPESCRIPT_37)).text);
    expect(ts.thrown).toMatch(/169\.254\.169\.254|not allowed|refus/i);
    const sdk = readAsStainless((await streamed("navigate", refused, STAINLESS)).text);
    expect(sdk.raised).toMatchObject({ type: "system", data: { status: "error" } });
    expect(sdk.raised.data.error).toBe(ts.thrown);
  });

  it("keeps a stream talking while the model is slow, at verbose 0, and both clients read it whole", async () => {
    await service.call("POST", `/v1/sessions/${id}/end`);
    id = (
      await service.call("POST", "/v1/sessions/start", {
        body: { modelName: "openai/gpt-4.1-mini", verbose: 0 },
        headers: { "x-model-api-key": MODEL_KEY },
      })
    ).body.data.sessionId;
    await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: pages.url("outline/shop.html") },
    });
    for (const headers of [TYPESCRIPT_37, STAINLESS]) {
      const gate = gatedModel(model);
      const answer = await fetch(`${service.url}/v1/sessions/${id}/act`, {
        method: "POST",
        headers: {
          ...headers,
          "x-wf-api-key": KEYS.alpha,
          "content-type": "application/json",
          "x-stream-response": "true",
        },
        body: JSON.stringify({ input: "add black tea to the cart" }),
      });
      const stream = reading(answer.body!);
      // The model holds its answer: the stream says, again and again, whom it waits for.
      const waiting = (text: string) =>
        comments(text).filter((c) => c.includes("act: waiting for openai/gpt-4.1-mini")).length;
      const held = await stream.until((text) => waiting(text) >= 3);
      expect(waiting(held)).toBeGreaterThanOrEqual(3);
      expect(held).not.toContain('"finished"');
      gate.open();
      const text = await stream.all();
      expect(comments(text).every((c) => c.startsWith("keep-alive: act"))).toBe(true);
      // Each client reads the stream as if the comments were not there; at verbose 0 no line.
      const read: { frames: any[]; thrown?: string; raised?: unknown } =
        headers === STAINLESS ? readAsStainless(text) : readAs37(text);
      expect(read.thrown ?? read.raised).toBeUndefined();
      // (The model's usage is a frame of ours at any verbose, for the client's metrics.)
      const lines = read.frames.filter((f) => f.type === "log" && !f.data.usage);
      expect(lines).toEqual([]);
      expect(read.frames.at(-1).data).toMatchObject({
        status: "finished",
        result: { success: true },
      });
    }
  });

  it("says in a log frame, at verbose 1, that the model is still being asked", async () => {
    await service.call("POST", `/v1/sessions/${id}/end`);
    id = (
      await service.call("POST", "/v1/sessions/start", {
        body: { modelName: "openai/gpt-4.1-mini", verbose: 1 },
        headers: { "x-model-api-key": MODEL_KEY },
      })
    ).body.data.sessionId;
    await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: pages.url("outline/shop.html") },
    });
    const gate = gatedModel(model);
    const answer = await fetch(`${service.url}/v1/sessions/${id}/extract`, {
      method: "POST",
      headers: {
        ...STAINLESS,
        "x-wf-api-key": KEYS.alpha,
        "content-type": "application/json",
        "x-stream-response": "true",
      },
      body: JSON.stringify({ instruction: "the cart line" }),
    });
    const stream = reading(answer.body!);
    await stream.until((text) => text.includes("still waiting for openai/gpt-4.1-mini"));
    gate.open();
    const sdk = readAsStainless(await stream.all());
    expect(sdk.raised).toBeUndefined();
    const said = sdk.frames.filter((f) => f.type === "log").map((f) => f.data.message);
    expect(said[0]).toMatchObject({
      category: "model",
      level: 1,
      message: expect.stringMatching(
        /^extract: still waiting for openai\/gpt-4\.1-mini \(\d+ s\)$/,
      ),
    });
    expect(sdk.frames.at(-1).data).toMatchObject({
      status: "finished",
      result: { extraction: "Cart: empty" },
    });
  });

  it("writes the same frame in either framing", () => {
    const frame = { type: "system", data: { status: "finished", result: { ok: 1 } } } as const;
    const data = frameText(frame, "data");
    const named = frameText(frame, "events");
    expect(data).toMatch(/^data: \{.*\}\n\n$/);
    expect(named).toMatch(/^event: finished\ndata: \{.*\}\n\n$/);
    const log = { type: "log", data: { status: "running", message: { message: "m" } } } as const;
    expect(frameText(log as never, "events")).toMatch(/^event: running\n/);
  });
});
