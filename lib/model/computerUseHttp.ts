/**
 * What the computer-use adapters (openaiComputerUse.ts, googleComputerUse.ts) share: they do
 * one thing, and they call their provider over HTTP with errors the model layer retries and
 * explains like the AI SDK's own.
 */
import { APICallError, type LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { UnsupportedModelError } from "../errors.js";

/**
 * A computer-use model drives a screen through its provider's computer tool, nothing else.
 * Asked for structured output (act, extract, observe) or offered other tools (an agent in dom
 * or hybrid mode), it says so instead of answering the wrong question.
 */
export function refuseOtherUses(options: LanguageModelV3CallOptions, label: string): void {
  const otherTools = (options.tools ?? []).filter((t) => t.name !== "computer");
  if (options.responseFormat?.type === "json" || otherTools.length || !options.tools?.length) {
    throw new UnsupportedModelError(label, ["cua"], {
      operation: 'anything but agent mode "cua" (it only drives a screen)',
      supportedLabel: "Modes it can run",
    });
  }
}

/** POSTs JSON and reads JSON; a refused or failed request is an APICallError (429/5xx/network retryable). */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string | undefined>,
  signal: AbortSignal | undefined,
  send: typeof fetch = fetch,
): Promise<unknown> {
  const response = await send(url, {
    method: "POST",
    headers: Object.fromEntries(
      Object.entries({ "content-type": "application/json", ...headers }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    ),
    body: JSON.stringify(body),
    signal,
  }).catch((error: unknown) => {
    throw new APICallError({
      message: error instanceof Error ? error.message : String(error),
      url,
      requestBodyValues: body,
      isRetryable: !signal?.aborted,
      cause: error,
    });
  });
  const text = await response.text();
  if (!response.ok) {
    throw new APICallError({
      message: `HTTP ${response.status}`,
      url,
      requestBodyValues: body,
      statusCode: response.status,
      responseHeaders: Object.fromEntries(response.headers),
      responseBody: text,
      isRetryable: response.status === 429 || response.status >= 500,
    });
  }
  return JSON.parse(text);
}
