/**
 * The model path's warm-up (lib/model/warmUp.ts), which a service runs once it listens: each
 * protocol it warms must be answered by its canned answer (a provider upgrade that stops
 * accepting one would quietly put the cost back on a caller's first request), every request
 * stays on 127.0.0.1 with no key of the environment, and a service's log stays quiet.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Logger, type LogLine } from "../../lib/log.js";
import { warmUpModels } from "../../lib/model/warmUp.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("warmUpModels", () => {
  it("warms OpenAI's Responses and chat APIs, Anthropic's and Google's, on 127.0.0.1 only", async () => {
    const asked: { url: string; authorization: string | null }[] = [];
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      asked.push({
        url: request.url,
        authorization:
          request.headers.get("authorization") ??
          request.headers.get("x-api-key") ??
          request.headers.get("x-goog-api-key"),
      });
      return realFetch(request);
    });
    const lines: LogLine[] = [];
    const logger = new Logger({ verbose: 2, disablePino: true, logger: (l) => lines.push(l) });
    // A key in the environment must not be what the warm-up sends.
    vi.stubEnv("OPENAI_API_KEY", "sk-from-the-environment-0123456789");

    const warned = vi.spyOn(console, "warn");
    const said = vi.spyOn(console, "log");
    const warmed = await warmUpModels(logger);

    expect(warmed).toEqual([
      "openai/gpt-4.1-mini",
      "gpt-4.1-mini",
      "anthropic/claude-sonnet-4-5",
      "google/gemini-2.5-flash",
    ]);
    expect(asked.map((a) => new URL(a.url).pathname)).toEqual([
      "/v1/responses",
      "/chat/v1/chat/completions",
      "/v1/messages",
      "/v1beta/models/gemini-2.5-flash:generateContent",
    ]);
    for (const { url, authorization } of asked) {
      expect(new URL(url).hostname).toBe("127.0.0.1");
      expect(authorization ?? "").not.toContain("sk-from-the-environment");
    }
    // Only debug lines: nothing a service's operator reads at its default level, and nothing
    // on the console (the AI SDK warns there of a model it does not know).
    expect(lines.filter((l) => l.level < 2)).toEqual([]);
    expect(warned).not.toHaveBeenCalled();
    expect(said).not.toHaveBeenCalled();
    vi.unstubAllEnvs();
  });

  it("never rejects, and names nothing when no protocol could be warmed", async () => {
    vi.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("fetch failed"));
    await expect(warmUpModels()).resolves.toEqual([]);
  });
});
