/**
 * Where automated navigation may go. The job's URL and the agent's goto pass through
 * here: no local files, no browser-internal pages, no cloud metadata endpoints, unless the
 * caller explicitly allows them. A user driving page.goto() directly is not restricted.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Browser } from "playwright-core";
import { NavigationRefusedError } from "../errors.js";

export { NavigationRefusedError };

export interface NavigationAllowance {
  /** Schemes to allow beyond http(s), about and data, such as "file:". */
  schemes?: readonly string[];
  /** Allow link-local and metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254). */
  linkLocal?: boolean;
}

const ALWAYS_ALLOWED = new Set(["http:", "https:", "about:", "data:"]);
const METADATA_HOSTS = new Set([
  "metadata.google.internal",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);

export function checkNavigation(raw: string, allow: NavigationAllowance = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NavigationRefusedError(raw, "it is not an absolute URL");
  }
  if (!ALWAYS_ALLOWED.has(url.protocol) && !allow.schemes?.includes(url.protocol)) {
    throw new NavigationRefusedError(raw, `the ${url.protocol} scheme is not allowed`);
  }
  if (!allow.linkLocal && isLinkLocal(url.hostname)) {
    throw new NavigationRefusedError(raw, "it is a link-local or cloud metadata address");
  }
  return url;
}

function isLinkLocal(hostname: string): boolean {
  // A trailing dot names the same host ("metadata.google.internal." is the FQDN form).
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (METADATA_HOSTS.has(host)) return true;
  if (isIP(host) === 4) return host.startsWith("169.254.");
  if (isIP(host) === 6) {
    if (/^fe[89ab][0-9a-f]:/.test(host)) return true;
    if (host === "fd00:ec2::254") return true;
    // 169.254.x.y embedded in IPv6, as the URL parser writes it (hex): IPv4-mapped
    // (::ffff:a9fe:…), IPv4-compatible (::a9fe:…) and the NAT64 prefix (64:ff9b::a9fe:…).
    return /^(::ffff:|::|64:ff9b::)(169\.254\.|a9fe:)/.test(host);
  }
  return false;
}

/** Why `url` is refused, resolving its host name too; undefined when it may be opened. */
export async function navigationRefusal(
  url: string,
  allow: NavigationAllowance = {},
): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = checkNavigation(url, allow);
  } catch (error) {
    return error instanceof NavigationRefusedError ? error.reason : String(error);
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (allow.linkLocal || !host || isIP(host) || !/^https?:$/.test(parsed.protocol))
    return undefined;
  // A name can point anywhere: refuse one that resolves to a link-local address. (Chromium
  // resolves again by itself, so a name that changes its answer in between is not caught.)
  const addresses = await Promise.race([
    lookup(host, { all: true }).catch(() => []),
    new Promise<[]>((resolve) => setTimeout(() => resolve([]), 2_000).unref()),
  ]);
  const bad = addresses.find((a) => isLinkLocal(a.address));
  return bad ? `${host} resolves to the link-local address ${bad.address}` : undefined;
}

export type NavigationCheck = (url: string) => Promise<string | undefined>;

/**
 * Applies a check to every document request of the browser: top-level and frame navigations,
 * each redirect hop, and those a page starts by itself. A refused one fails as blocked.
 * Returns the function that lifts the guard.
 */
export async function guardNavigations(
  browser: Browser,
  check: NavigationCheck,
  onRefused: (url: string, reason: string) => void = () => {},
): Promise<() => Promise<void>> {
  const session = await browser.newBrowserCDPSession();
  session.on("Fetch.requestPaused", (event) => {
    void check(event.request.url)
      .catch((error: unknown) => `the check failed: ${String(error)}`)
      .then((reason) => {
        if (reason) onRefused(event.request.url, reason);
        return reason
          ? session.send("Fetch.failRequest", {
              requestId: event.requestId,
              errorReason: "BlockedByClient",
            })
          : session.send("Fetch.continueRequest", { requestId: event.requestId });
      })
      .catch(() => {});
  });
  await session.send("Fetch.enable", {
    patterns: [{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }],
  });
  return () => session.detach().catch(() => {});
}
