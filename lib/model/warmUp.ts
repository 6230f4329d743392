/**
 * A process pays once for its first model call: Node's fetch (undici loads on first use), the
 * provider's package, the answer schemas it builds on first use, and the AI SDK's path through
 * them, about 120 ms (ten times a later call's overhead). A service pays it while it waits:
 * one structured call per common protocol, each answered by a server of its own on 127.0.0.1
 * with a canned answer, through the very client an operation uses. Nothing leaves the machine
 * and no key is sent anywhere; what a call learned is thrown away.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { Logger } from "../log.js";
import { ModelClient } from "./modelClient.js";

/** The protocols most calls speak; the others load as before, on their first call. */
const WARMED = [
  { modelName: "openai/gpt-4.1-mini", baseURL: "/v1" },
  { modelName: "gpt-4.1-mini", baseURL: "/chat/v1", openaiEndpointFormat: "chat" as const },
  { modelName: "anthropic/claude-sonnet-4-5", baseURL: "/v1" },
  { modelName: "google/gemini-2.5-flash", baseURL: "/v1beta" },
] as const;

const ANSWER = JSON.stringify({ ok: true });

/**
 * Each protocol's smallest complete answer carrying ANSWER, by the path it is asked on (and for
 * Anthropic, as a tool's input when the request asked for the answer by a tool).
 */
function cannedAnswer(path: string, request: string): unknown {
  if (path.endsWith("/responses")) {
    return {
      id: "resp_warm",
      object: "response",
      created_at: 0,
      model: "warm-up",
      status: "completed",
      output: [
        {
          type: "message",
          id: "msg_warm",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: ANSWER, annotations: [] }],
        },
      ],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    };
  }
  if (path.endsWith("/chat/completions")) {
    return {
      id: "chatcmpl_warm",
      object: "chat.completion",
      created: 0,
      model: "warm-up",
      choices: [
        { index: 0, message: { role: "assistant", content: ANSWER }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
  }
  if (path.endsWith("/messages")) {
    return {
      id: "msg_warm",
      type: "message",
      role: "assistant",
      model: "warm-up",
      content: [
        request.includes('"name":"json"')
          ? { type: "tool_use", id: "toolu_warm", name: "json", input: JSON.parse(ANSWER) }
          : { type: "text", text: ANSWER },
      ],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  }
  return {
    candidates: [{ content: { role: "model", parts: [{ text: ANSWER }] }, finishReason: "STOP" }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  };
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.once("end", () => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const body = JSON.stringify(cannedAnswer(path, Buffer.concat(chunks).toString()));
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
}

/**
 * Makes one call per protocol of WARMED; resolves with the models that answered (a protocol
 * whose call failed is named in the log at debug level and loads again on its first real call).
 * Never rejects.
 */
export async function warmUpModels(logger?: Logger): Promise<string[]> {
  const server = createServer(answer);
  const log = logger ?? new Logger({ verbose: 0, disablePino: true });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const warmed: string[] = [];
    // One after another: a service that has just started has other work for its cores.
    for (const { baseURL, ...config } of WARMED) {
      const client = new ModelClient({
        model: { ...config, apiKey: "no-key-for-a-local-warm-up", baseURL: `${origin}${baseURL}` },
        logger: log,
        env: {},
      });
      try {
        const { value } = await client.generate({
          operation: "extract",
          system: "",
          prompt: "warm up",
          schema: z.object({ ok: z.boolean() }),
          signal: AbortSignal.timeout(10_000),
        });
        if (value.ok) warmed.push(config.modelName);
      } catch (error) {
        log.debug("model", `warming ${config.modelName} failed: ${String(error)}`);
      }
    }
    return warmed;
  } catch {
    return [];
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
