/**
 * Where automated navigation may go. The job's URL and the agent's goto pass through
 * here: no local files, no browser-internal pages, no cloud metadata endpoints, unless the
 * caller explicitly allows them. A user driving page.goto() directly is not restricted.
 */
import { isIP } from "node:net";
import type { Browser } from "playwright-core";
import { NavigationRefusedError } from "../errors.js";
import { judgeHost, kindsOf, LOCAL_RULE } from "../net/addressRule.js";

export { NavigationRefusedError };

export interface NavigationAllowance {
  /** Schemes to allow beyond http(s), about and data, such as "file:". */
  schemes?: readonly string[];
  /** Allow link-local and metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254). */
  linkLocal?: boolean;
}

const ALWAYS_ALLOWED = new Set(["http:", "https:", "about:", "data:"]);

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
  return kindsOf(hostname).includes("link-local");
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
  // resolves again by itself, so a name that changes its answer in between is not caught; the
  // egress proxy, lib/browser/egressProxy.ts, connects to the address it judged.)
  const verdict = await judgeHost(host, LOCAL_RULE);
  return "refused" in verdict ? verdict.refused : undefined;
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
