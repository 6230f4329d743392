/**
 * The one rule for which network addresses a browser (or anything the library fetches for a
 * caller, such as a model's baseURL) may reach. An address is classified once, in any spelling
 * (IPv4 in IPv6 by every standard embedding); a host name is resolved once per host and judged
 * by every address it resolves to. Used by the navigation policy and by the egress proxy.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { addressBytes, type HostService, hostServiceOf, within } from "./hostServices.js";

/** What an address is, for the rule: the kinds a rule may refuse. */
export type AddressKind = "link-local" | "loopback" | "private";

export interface AddressRule {
  /** Kinds refused; link-local covers cloud metadata addresses and names. */
  refuse: readonly AddressKind[];
  /**
   * Let through: host names as written (whatever they resolve to), addresses, and CIDR ranges
   * (`10.0.0.0/8`, `fd00::/8`) that a literal host or every address of a name falls in.
   */
  allowHosts?: readonly string[];
  /**
   * The setting that fills `allowHosts` (`WAYFARER_ALLOW_HOSTS` on the service), named in a
   * loopback or private refusal so that whoever reads it knows what would change it. Never for
   * link-local: cloud metadata is not something to suggest opening.
   */
  allowedBy?: string;
  /** Who resolves names: the system's resolver unless a test gives its own. */
  lookup?: Lookup;
}

/** Documents on this machine: only link-local and cloud metadata are off limits. */
export const LOCAL_RULE: AddressRule = { refuse: ["link-local"] };
/** A service visiting pages for strangers: nothing of its own network. */
export const STRICT_RULE: AddressRule = { refuse: ["link-local", "loopback", "private"] };

/** A host name as compared: lower case, no brackets, no trailing dot (the FQDN form). */
export function normalHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

/** The kinds an IP address (or a metadata name) falls under; empty for a public address. */
export function kindsOf(host: string): AddressKind[] {
  const h = normalHost(host);
  // A cloud's metadata or host service (by name or address) counts as link-local.
  if (hostServiceOf(h)) return ["link-local"];
  if (isIP(h) === 4) return v4Kinds(h);
  if (isIP(h) !== 6) return [];
  const kinds = new Set<AddressKind>();
  const b = addressBytes(h)!;
  const word = (i: number) => (b[i]! << 8) | b[i + 1]!;
  if (b.slice(0, 15).every((x) => x === 0) && (b[15] === 1 || b[15] === 0)) kinds.add("loopback");
  if ((b[0]! & 0xfe) === 0xfc) kinds.add("private");
  // Multicast, site-local (deprecated), documentation, discard-only: no site of the web.
  if (b[0] === 0xff || (word(0) & 0xffc0) === 0xfec0) kinds.add("private");
  if (word(0) === 0x2001 && word(2) === 0x0db8) kinds.add("private");
  if (word(0) === 0x0100 && word(2) === 0 && word(4) === 0 && word(6) === 0) kinds.add("private");
  for (const v4 of embeddedIPv4(h)) for (const k of v4Kinds(v4)) kinds.add(k);
  return [...kinds];
}

function v4Kinds(ip: string): AddressKind[] {
  const [a, b, c] = ip.split(".").map(Number) as [number, number, number];
  if (hostServiceOf(ip)) return ["link-local"];
  // 0.0.0.0/8 reaches this machine on Linux: counted as the loopback.
  if (a === 127 || a === 0) return ["loopback"];
  if (a === 10 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168)) return ["private"];
  // Shared address space (carrier NAT, also some clouds' internal networks).
  if (a === 100 && b >= 64 && b < 128) return ["private"];
  // Special-purpose blocks (RFC 6890): protocol assignments, documentation, benchmarking, the
  // 6to4 relay, multicast, reserved and broadcast. Private, not link-local: a local proxy's
  // fake addresses (198.18.0.0/15) are for the machine's own browsing.
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return ["private"];
  if ((a === 198 && (b === 18 || b === 19)) || (a === 198 && b === 51 && c === 100)) {
    return ["private"];
  }
  if ((a === 203 && b === 0 && c === 113) || (a === 192 && b === 88 && c === 99)) {
    return ["private"];
  }
  if (a >= 224) return ["private"];
  return [];
}

/** Why `address` (of `host`) is refused under `rule`; undefined when it may be reached. */
export function refusalOf(address: string, rule: AddressRule): string | undefined {
  const refused = kindsOf(address).filter((k) => rule.refuse.includes(k));
  if (!refused.length) return undefined;
  if (refused[0] === "link-local") {
    const service = hostService(address);
    const named = service && !service.match.includes("/") ? ` (${service.name})` : "";
    return `it is a link-local or cloud metadata address${named}`;
  }
  const hint = rule.allowedBy ? `, refused unless ${rule.allowedBy} lists it` : "";
  return `it is a ${refused[0]} address${hint}`;
}

/** The cloud host service an address or name is, in any spelling (IPv4 inside IPv6 too). */
export function hostService(host: string): HostService | undefined {
  const h = normalHost(host);
  return hostServiceOf(h) ?? embeddedIPv4(h).map(hostServiceOf).find(Boolean);
}

/**
 * Whether the rule lets `host` through by name, whatever it resolves to (never a host
 * service's name: no setting opens those).
 */
export function allowedByName(host: string, rule: AddressRule): boolean {
  const h = normalHost(host);
  if (hostService(h)) return false;
  return (rule.allowHosts ?? []).some((a) => !a.includes("/") && normalHost(a) === h);
}

/**
 * Whether the rule lets an address through: listed as it is, or inside a listed CIDR range.
 * A host service never is, whatever is listed (`0.0.0.0/0` included).
 */
export function allowedAddress(address: string, rule: AddressRule): boolean {
  if (hostService(address)) return false;
  const bytes = ipBytes(address);
  if (!bytes) return false;
  return (rule.allowHosts ?? []).some((entry) => {
    const [base, bits] = entry.split("/") as [string, string | undefined];
    const range = ipBytes(base);
    if (!range || range.length !== bytes.length) return false;
    const prefix = bits === undefined ? bytes.length * 8 : Number(bits);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > bytes.length * 8) return false;
    return within(bytes, range, prefix);
  });
}

/** The 4 or 16 bytes of an IP address; undefined for a name. */
function ipBytes(address: string): number[] | undefined {
  const h = normalHost(address);
  return addressBytes(h);
}

export type Lookup = (host: string) => Promise<string[]>;

/** The system resolver: every address of a name, within 2 s (none when it does not answer). */
export const systemLookup: Lookup = async (host) => {
  const answers = await Promise.race([
    dnsLookup(host, { all: true }).catch(() => []),
    new Promise<[]>((resolve) => setTimeout(() => resolve([]), 2_000).unref()),
  ]);
  return answers.map((a) => a.address);
};

export type HostVerdict = { addresses: string[] } | { refused: string };

/**
 * Judges a host under a rule, resolving a name once: every address it resolves to must pass.
 * `addresses` are those to connect to (a name the resolver does not know has none).
 */
export async function judgeHost(
  host: string,
  rule: AddressRule,
  given?: Lookup,
): Promise<HostVerdict> {
  const lookup = given ?? rule.lookup ?? systemLookup;
  const h = normalHost(host);
  const literal = isIP(h) !== 0;
  if (allowedByName(h, rule)) {
    const addresses = literal ? [h] : await lookup(h);
    // Allowed by name, but never to a host service: a name listed for an intranet site that
    // resolves to the metadata address is refused still.
    const service = addresses.find((a) => hostService(a));
    if (service)
      return {
        refused: `${h} resolves to ${refusalOf(service, LOCAL_RULE)!.replace(/^it is /, "")}`,
      };
    return { addresses };
  }
  if (literal) {
    const why = allowedAddress(h, rule) ? undefined : refusalOf(h, rule);
    return why ? { refused: why } : { addresses: [h] };
  }
  const byName = refusalOf(h, rule);
  if (byName) return { refused: byName };
  const addresses = await lookup(h);
  for (const address of addresses) {
    const why = allowedAddress(address, rule) ? undefined : refusalOf(address, rule);
    // The kind, not the address: a caller must not map a network by what its names resolve to.
    if (why) return { refused: `${h} resolves to ${why.replace(/^it is /, "")}` };
  }
  return { addresses };
}

/**
 * Why a URL the library would fetch for a caller (a model's baseURL, say) is refused under the
 * rule; undefined when it may be fetched. A service checks these before any request.
 * `unresolved`: a name that resolves to nothing is refused too (a URL a caller gives to be
 * fetched later, where "does not resolve" is the caller's to fix).
 */
export async function urlRefusal(
  url: string,
  rule: AddressRule,
  lookup?: Lookup,
  unresolved: "pass" | "refuse" = "pass",
): Promise<string | undefined> {
  const parsed = URL.parse(url);
  if (!parsed || !/^https?:$/.test(parsed.protocol)) return "it is not an http(s) URL";
  const verdict = await judgeHost(parsed.hostname, rule, lookup);
  if ("refused" in verdict) return verdict.refused;
  if (unresolved === "pass" || verdict.addresses.length) return undefined;
  return `${normalHost(parsed.hostname)} does not resolve`;
}

/** A judge that resolves each host once and remembers the verdict a while. */
export function hostJudge(
  rule: AddressRule,
  lookup?: Lookup,
  ttlMs = 60_000,
): (host: string) => Promise<HostVerdict> {
  const known = new Map<string, { at: number; verdict: Promise<HostVerdict> }>();
  return (host) => {
    const h = normalHost(host);
    const hit = known.get(h);
    if (hit && Date.now() - hit.at < ttlMs) return hit.verdict;
    const verdict = judgeHost(h, rule, lookup);
    known.set(h, { at: Date.now(), verdict });
    return verdict;
  };
}

/**
 * The IPv4 addresses an IPv6 address carries by a standard embedding, in any spelling: mapped
 * (::ffff:0:0/96), compatible (::/96), SIIT-translated (::ffff:0:0:0/96), NAT64 well-known
 * (64:ff9b::/96) and local-use (64:ff9b:1::/48, at its /48 and /96 places), 6to4 (2002::/16)
 * and Teredo (2001::/32: its server, and its client with the bits flipped).
 */
export function embeddedIPv4(address: string): string[] {
  const b = addressBytes(address);
  if (b?.length !== 16) return [];
  const v4 = (i: number, flip = 0) =>
    [b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!].map((x) => x ^ flip).join(".");
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const found: string[] = [];
  const word = (i: number) => (b[i]! << 8) | b[i + 1]!;
  if (zero(0, 10) && word(10) === 0xffff) found.push(v4(12));
  // Compatible (::a.b.c.d), but not :: and ::1 themselves.
  if (zero(0, 12) && !zero(12, 15)) found.push(v4(12));
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
