/**
 * The address of a caller's own browser (`browser.cdpUrl`), made safe to connect to from the
 * service's process: judged by the service's egress rule (the one its browsers' pages go
 * through), so a caller cannot make the service reach the host's loopback or private network,
 * and connected to at the address judged. A plain ws:// or http:// address is rewritten to that
 * IP (a name cannot resolve elsewhere between the check and the connection; Chromium's DevTools
 * server wants an IP in the Host header anyway). A TLS address keeps its name: the certificate
 * must match it, which a server the name is rebound to does not have. An http(s) address is
 * asked for its WebSocket here, not by Playwright, and only that answer's path is kept: its
 * host is whatever the browser says it binds, which may be the loopback.
 */
import { ServiceValidationError } from "../errors.js";
import { type AddressRule, judgeHost } from "../net/addressRule.js";
import { readableReason } from "../readableError.js";
import { CallerBrowserUnreachable } from "./serviceErrors.js";

const DEFAULT_TIMEOUT_MS = 10_000;
/** /json/version answers a few hundred bytes. */
const MAX_VERSION_BYTES = 64 * 1024;

/** The WebSocket URL to give Playwright for `given`; a 400 naming `path` when refused. */
export async function pinCallerBrowser(
  given: string,
  path: (string | number)[],
  rule: AddressRule,
  timeoutMs = DEFAULT_TIMEOUT_MS,
  /** The caller's cdpHeaders: its browser's host may want them on /json/version too. */
  headers: Record<string, string> = {},
): Promise<string> {
  const refuse = (message: string): never => {
    throw new ServiceValidationError("start body", [{ path, message }]);
  };
  const url = URL.parse(given);
  if (!url || !/^(wss?|https?):$/.test(url.protocol) || !url.hostname) {
    return refuse("expected a ws://, wss://, http:// or https:// URL of a browser's DevTools");
  }
  const verdict = await judgeHost(url.hostname, rule);
  if ("refused" in verdict) {
    return refuse(
      `refused by this service's egress rule (the one its browsers' pages go through): ${verdict.refused}`,
    );
  }
  const address = verdict.addresses[0];
  if (!address) return refuse(`${url.hostname} does not resolve`);
  const tls = url.protocol === "wss:" || url.protocol === "https:";
  const pinned = new URL(url.href);
  if (!tls) pinned.hostname = address.includes(":") ? `[${address}]` : address;
  if (/^wss?:$/.test(url.protocol)) return pinned.href;
  const socket = await webSocketPath(pinned, timeoutMs, headers).catch((error: unknown) => {
    throw new CallerBrowserUnreachable(
      `could not reach the browser at ${path.join(".")} (${url.origin}/json/version): ${readableReason(error)}`,
    );
  });
  const ws = new URL(pinned.href);
  ws.protocol = tls ? "wss:" : "ws:";
  ws.pathname = socket.pathname;
  ws.search = socket.search;
  return ws.href;
}

/** What the browser at an http(s) address says its WebSocket is (its path is what we keep). */
async function webSocketPath(
  base: URL,
  timeoutMs: number,
  headers: Record<string, string>,
): Promise<URL> {
  const response = await fetch(new URL("/json/version", base), {
    headers,
    // Followed, a redirect would reach an address nobody judged.
    redirect: "error",
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`it answered ${response.status}`);
  const text = await boundedText(response, MAX_VERSION_BYTES);
  const found = (JSON.parse(text) as { webSocketDebuggerUrl?: unknown }).webSocketDebuggerUrl;
  const socket = typeof found === "string" ? URL.parse(found) : null;
  if (!socket) throw new Error("its answer names no webSocketDebuggerUrl");
  return socket;
}

/** The body, read no further than `max` bytes (an answer past it is no browser's). */
async function boundedText(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new Error("its answer is not a browser's version (too long)");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
