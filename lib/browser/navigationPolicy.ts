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
    return embeddedIPv4(host).some((v4) => v4.startsWith("169.254."));
  }
  return false;
}

/**
 * The IPv4 addresses an IPv6 address carries by a standard embedding, in any spelling: mapped
 * (::ffff:0:0/96), compatible (::/96), SIIT-translated (::ffff:0:0:0/96), NAT64 well-known
 * (64:ff9b::/96) and local-use (64:ff9b:1::/48, at its /48 and /96 places), 6to4 (2002::/16)
 * and Teredo (2001::/32: its server, and its client with the bits flipped).
 */
export function embeddedIPv4(address: string): string[] {
  const b = ipv6Bytes(address);
  if (!b) return [];
  const v4 = (i: number, flip = 0) =>
    [b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!].map((x) => x ^ flip).join(".");
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const found: string[] = [];
  const word = (i: number) => (b[i]! << 8) | b[i + 1]!;
  if (zero(0, 10) && word(10) === 0xffff) found.push(v4(12));
  if (zero(0, 12)) found.push(v4(12));
  if (zero(0, 8) && word(8) === 0xffff && word(10) === 0) found.push(v4(12));
  if (word(0) === 0x64 && word(2) === 0xff9b) {
    found.push(v4(12));
    // Local-use prefix /48 (RFC 6052): the address in bytes 6-7 and 9-10, byte 8 left zero.
    if (word(4) === 1) found.push([b[6], b[7], b[9], b[10]].join("."));
  }
  if (word(0) === 0x2002) found.push(v4(2));
  if (word(0) === 0x2001 && word(2) === 0) found.push(v4(4), v4(12, 0xff));
  return found;
}

/** The 16 bytes of an IPv6 address (a dotted IPv4 tail allowed); undefined if it is none. */
function ipv6Bytes(address: string): number[] | undefined {
  let text = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIP(text) !== 6) return undefined;
  const tail = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (tail) {
    const [p, q, r, s] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((p << 8) | q).toString(16)}:${((r << 8) | s).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const groups = (part: string) => (part ? part.split(":") : []);
  const before = groups(head);
  const after = rest === undefined ? [] : groups(rest);
  const fill = rest === undefined ? [] : Array(8 - before.length - after.length).fill("0");
  const all = [...before, ...fill, ...after];
  if (all.length !== 8) return undefined;
  return all.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
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
