/**
 * Chromium's network error codes in words: what failed and what to do, for the one readable
 * line a failed navigation surfaces (readableError.ts).
 */
import type { NetFailure } from "./errors.js";

type Words = Omit<NetFailure, "code">;

const CERTIFICATE: Words = {
  reason: "the site's TLS certificate was not accepted",
  advice:
    "Fix the site's certificate, or for a site you trust pass localBrowserLaunchOptions.ignoreHTTPSErrors: true",
};

/** Chromium's network error codes (without `net::ERR_`), in words. */
const NET_ERRORS: Record<string, Words> = {
  CONNECTION_REFUSED: {
    reason: "the connection was refused",
    advice: "Nothing listens at that address and port: check the URL and that the server is up",
  },
  NAME_NOT_RESOLVED: {
    reason: "the host name did not resolve",
    advice: "Check the host name in the URL, and that this machine can reach a DNS server",
  },
  CONNECTION_RESET: {
    reason: "the connection was reset",
    advice:
      "The server or something on the way dropped it: check that the server is healthy and try again",
  },
  CONNECTION_CLOSED: {
    reason: "the server closed the connection",
    advice: "Check that the server is healthy and try again",
  },
  EMPTY_RESPONSE: {
    reason: "the server closed the connection without answering",
    advice: "Check that the server is healthy and that the URL's port serves HTTP",
  },
  TIMED_OUT: {
    reason: "the connection timed out",
    advice: "Check that the server is up and reachable from here (firewall, proxy)",
  },
  CONNECTION_TIMED_OUT: {
    reason: "the connection timed out",
    advice: "Check that the server is up and reachable from here (firewall, proxy)",
  },
  ADDRESS_UNREACHABLE: {
    reason: "the address is unreachable",
    advice: "There is no route to that host: check the URL and this machine's network",
  },
  INTERNET_DISCONNECTED: {
    reason: "this machine has no network connection",
    advice: "Connect the machine to a network (or configure a proxy) and try again",
  },
  ABORTED: {
    reason: "the browser aborted the load",
    advice:
      "Another navigation replaced it, or the URL serves a download instead of a page: check the URL",
  },
  TOO_MANY_REDIRECTS: {
    reason: "the page redirected too many times",
    advice: "The site's redirects go round in a loop: check the URL and what the site expects",
  },
  BLOCKED_BY_CLIENT: {
    reason: "the browser blocked the request",
    advice: "A navigation policy or request filter refused it: check where the URL redirects to",
  },
  UNSAFE_PORT: {
    reason: "the browser refuses to connect to that port",
    advice: "Chromium never connects to that port: serve the site on another one",
  },
  SSL_PROTOCOL_ERROR: {
    reason: "the TLS handshake failed",
    advice:
      "Check that the URL's scheme matches the server (https:// on a plain-HTTP port fails so)",
  },
  PROXY_CONNECTION_FAILED: {
    reason: "the proxy could not be reached",
    advice: "Check localBrowserLaunchOptions.proxy and that the proxy is up",
  },
  CERT_AUTHORITY_INVALID: {
    reason: "the site's TLS certificate is not signed by a trusted authority",
    advice: CERTIFICATE.advice,
  },
  CERT_DATE_INVALID: {
    reason: "the site's TLS certificate has expired or is not yet valid",
    advice: CERTIFICATE.advice,
  },
  CERT_COMMON_NAME_INVALID: {
    reason: "the site's TLS certificate is for another host name",
    advice: CERTIFICATE.advice,
  },
};

/** Words for one of Chromium's codes (`net::ERR_…` or just its name); unknown ones keep the code. */
export function netFailure(code: string): NetFailure {
  const name = code.replace(/^(?:net::)?ERR_/, "");
  const words = NET_ERRORS[name] ??
    (name.startsWith("CERT_") ? CERTIFICATE : undefined) ?? {
      reason: "the browser's request failed",
      advice: "Check the URL and that the site is reachable from this machine",
    };
  return { code: `net::ERR_${name}`, ...words };
}
