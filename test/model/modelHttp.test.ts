/**
 * The model kit served over HTTP (test/support/llm/modelHttp.ts): a provider given its URL gets
 * the scripted answers, JSON and streamed; a streamed body reaches the caller event by event;
 * a caller that leaves aborts a waiting handler; a network error drops the connection; a request
 * no handler answers gets a 501.
 */
import { generateText, Output, streamText } from "ai";
import { HttpResponse, http } from "msw";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveModel } from "../../lib/model/providers.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { idOfLine, promptOf } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { gate, within } from "../support/waiting.js";

const OUTLINE = '[1] link "Home"\n[7] button "Add to cart"\n[9] button "Checkout"';
const KEY = "sk-kit-over-http";
const answering = openaiResponses((r) => ({ id: idOfLine(promptOf(r), "Add to cart") ?? "none" }));

let kit: ModelKitServer | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe("the model kit over HTTP", () => {
  it("answers a provider pointed at its URL, in JSON and streamed, and records each request", async () => {
    kit = await serveModelKit(answering);
    expect(kit.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const { model } = resolveModel({
      modelName: "openai/gpt-4.1-mini",
      apiKey: KEY,
      baseURL: kit.url,
    });
    const prompt = `Which element adds to the cart?\n${OUTLINE}`;
    const output = Output.object({ schema: z.object({ id: z.string() }) });
    const asked = await generateText({ model, prompt, output });
    expect(asked.output).toEqual({ id: "7" });

    const streamed = streamText({ model, prompt, output });
    let text = "";
    for await (const part of streamed.textStream) text += part;
    expect(JSON.parse(text)).toEqual({ id: "7" });

    // Recorded as the handlers matched them: OpenAI's URL, the caller's headers and body.
    const [first, second] = kit.requests();
    expect(kit.requests()).toHaveLength(2);
    expect(first!.url.href).toBe("https://api.openai.com/v1/responses");
    expect(first!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(first!.body.model).toBe("gpt-4.1-mini");
    expect(second!.body.stream).toBe(true);
    expect(kit.requestsTo("/responses")).toHaveLength(2);
    expect(kit.unhandled()).toEqual([]);
  });

  it("streams a body as the handler writes it, not once it ends", async () => {
    const seenFirst = gate();
    kit = await serveModelKit(
      http.post("https://api.openai.com/v1/responses", () => {
        const encoder = new TextEncoder();
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode('data: {"n":1}\n\n'));
            // The second event only once the caller has read the first: a buffered body
            // would never get here.
            await seenFirst.opened;
            controller.enqueue(encoder.encode('data: {"n":2}\n\n'));
            controller.close();
          },
        });
        return new HttpResponse(body, { headers: { "content-type": "text/event-stream" } });
      }),
    );
    const response = await within(
      5_000,
      "the response head",
      fetch(`${kit.url}/responses`, { method: "POST", body: "{}" }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const first = await within(5_000, "the first event", reader.read());
    expect(decoder.decode(first.value)).toBe('data: {"n":1}\n\n');
    seenFirst.open();
    let rest = "";
    for (;;) {
      const { done, value } = await within(5_000, "the rest of the stream", reader.read());
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    expect(rest).toBe('data: {"n":2}\n\n');
  });

  it("aborts a waiting handler's request when its caller goes away", async () => {
    const arrived = gate();
    let aborted: Promise<void> | undefined;
    kit = await serveModelKit(
      http.post("https://api.openai.com/v1/responses", ({ request }) => {
        aborted = new Promise((resolve) =>
          request.signal.addEventListener("abort", () => resolve()),
        );
        arrived.open();
        // A model that never answers: only the caller's leaving ends this.
        return new Promise<never>(() => {});
      }),
    );
    const caller = new AbortController();
    const answered = fetch(`${kit.url}/responses`, {
      method: "POST",
      body: "{}",
      signal: caller.signal,
    }).catch((error: unknown) => error);
    await within(5_000, "the request at the handler", arrived.opened);
    caller.abort();
    expect(await answered).toBeInstanceOf(Error);
    await within(5_000, "the handler's abort", aborted!);
  });

  it("answers 501 to a request no handler answers, and records it as unhandled", async () => {
    kit = await serveModelKit(answering);
    const response = await fetch(`${kit.url}/models`);
    expect(response.status).toBe(501);
    expect(await response.text()).toBe(
      "no model kit handler answers GET https://api.openai.com/v1/models (as received: /v1/models)\n",
    );
    expect(kit.unhandled()).toEqual(["GET https://api.openai.com/v1/models"]);
    expect(kit.requests()).toEqual([]);
  });

  it("drops the connection for HttpResponse.error(), a network error", async () => {
    kit = await serveModelKit(
      http.post("https://api.openai.com/v1/responses", () => HttpResponse.error()),
    );
    const failed = await fetch(`${kit.url}/responses`, { method: "POST", body: "{}" }).catch(
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TypeError);
  });

  it("puts handlers added with use() in front of the ones it started with", async () => {
    kit = await serveModelKit(answering);
    kit.use(
      http.post("https://api.openai.com/v1/responses", () =>
        HttpResponse.json({ error: { message: "slow down" } }, { status: 429 }),
      ),
    );
    const response = await fetch(`${kit.url}/responses`, { method: "POST", body: "{}" });
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({ error: { message: "slow down" } });
  });
});
