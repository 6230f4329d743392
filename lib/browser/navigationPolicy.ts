/**
 * Where automated navigation may go. The job's URL and (later) the agent's goto pass through
 * here: no local files, no browser-internal pages, no cloud metadata endpoints, unless the
 * caller explicitly allows them. A user driving page.goto() directly is not restricted.
 */
import { isIP } from "node:net";
import { ServiceError } from "../errors.js";

export interface NavigationAllowance {
  /** Schemes to allow beyond http(s), about and data, such as "file:". */
  schemes?: readonly string[];
  /** Allow link-local and metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254). */
  linkLocal?: boolean;
}

export class NavigationRefusedError extends ServiceError {
  override name = "NavigationRefusedError";
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`Refused to navigate to ${url}: ${reason}. Allow it explicitly if this is intended.`);
  }
}

const ALWAYS_ALLOWED = new Set(["http:", "https:", "about:", "data:"]);
const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata", "instance-data"]);

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
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (METADATA_HOSTS.has(host)) return true;
  if (isIP(host) === 4) return host.startsWith("169.254.");
  if (isIP(host) === 6) {
    if (/^fe[89ab][0-9a-f]:/.test(host)) return true;
    if (host === "fd00:ec2::254") return true;
    // IPv4-mapped (::ffff:169.254.x.y, which URL writes in hex as ::ffff:a9fe:xxxx).
    return /^::ffff:(169\.254\.|a9fe:)/.test(host);
  }
  return false;
}
