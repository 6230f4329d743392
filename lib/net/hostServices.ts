/**
 * The clouds' instance metadata and host services: what a machine's own cloud answers only to
 * that machine (credentials, its configuration, its agent's goal state). No page, request,
 * model endpoint or job may reach one, under any rule and whatever an operator allows: the
 * address rule (addressRule.ts) counts each as link-local, and no `allowHosts` entry opens it.
 * One table; a test per entry (test/net/hostServices.test.ts) tries every spelling of it.
 */
import { isIP } from "node:net";

export interface HostService {
  /** An address, a CIDR range, or a host name (compared lower case, without a trailing dot). */
  match: string;
  /** Whose it is and what it serves, as a refusal names it. */
  name: string;
}

export const HOST_SERVICES: readonly HostService[] = [
  // Instance metadata at the link-local address most clouds share (AWS, GCP, Azure IMDS,
  // Oracle, DigitalOcean, Hetzner, OpenStack, IBM, Huawei, Linode, Vultr, Scaleway…).
  { match: "169.254.169.254", name: "instance metadata (AWS, GCP, Azure, Oracle and others)" },
  { match: "fd00:ec2::254", name: "AWS instance metadata over IPv6" },
  { match: "169.254.170.2", name: "AWS ECS task metadata and credentials" },
  { match: "169.254.170.23", name: "AWS EKS Pod Identity credentials" },
  { match: "fd00:ec2::23", name: "AWS EKS Pod Identity credentials over IPv6" },
  { match: "169.254.169.253", name: "AWS VPC DNS resolver" },
  { match: "169.254.169.123", name: "AWS time sync" },
  { match: "fd20:ce::254", name: "GCP metadata over IPv6" },
  { match: "168.63.129.16", name: "Azure WireServer (host agent, goal state, DNS)" },
  { match: "100.100.100.200", name: "Alibaba Cloud instance metadata" },
  { match: "192.0.0.192", name: "Oracle Cloud instance metadata (legacy)" },
  { match: "169.254.0.23", name: "Tencent Cloud instance metadata" },
  // The link-local ranges themselves, where other clouds' agents and proxies listen.
  { match: "169.254.0.0/16", name: "link-local (IPv4)" },
  { match: "fe80::/10", name: "link-local (IPv6)" },
  // Names that clouds resolve to their metadata service (inside the instance's network).
  { match: "metadata.google.internal", name: "GCP metadata" },
  { match: "metadata.goog", name: "GCP metadata" },
  { match: "metadata", name: "GCP metadata (short name)" },
  { match: "instance-data", name: "AWS instance metadata (short name)" },
  { match: "instance-data.ec2.internal", name: "AWS instance metadata" },
  { match: "metadata.azure.internal", name: "Azure metadata" },
  { match: "metadata.azure.com", name: "Azure metadata" },
  { match: "metadata.tencentyun.com", name: "Tencent Cloud metadata" },
  { match: "api.metadata.cloud.ibm.com", name: "IBM Cloud metadata" },
  { match: "metadata.packet.net", name: "Equinix Metal metadata" },
  { match: "metadata.platformequinix.com", name: "Equinix Metal metadata" },
];

const byName = new Map(
  HOST_SERVICES.filter((s) => isIP(s.match.split("/")[0]!) === 0).map((s) => [s.match, s]),
);
const byRange = HOST_SERVICES.filter((s) => isIP(s.match.split("/")[0]!) !== 0)
  .map((s) => {
    const [base, bits] = s.match.split("/") as [string, string | undefined];
    const bytes = addressBytes(base)!;
    return { service: s, bytes, prefix: bits === undefined ? bytes.length * 8 : Number(bits) };
  })
  // The narrowest first: 169.254.169.254 names itself, not the link-local range around it.
  .sort((a, b) => b.prefix - a.prefix);

/**
 * The host service `host` is (a name, or an address in canonical form: IPv4 embedded in IPv6
 * is the caller's to unwrap, as addressRule.kindsOf does); undefined for anything else.
 */
export function hostServiceOf(host: string): HostService | undefined {
  const named = byName.get(host);
  if (named) return named;
  const bytes = addressBytes(host);
  if (!bytes) return undefined;
  return byRange.find((r) => r.bytes.length === bytes.length && within(bytes, r.bytes, r.prefix))
    ?.service;
}

/** Whether `bytes` share their first `prefix` bits with `range` (a CIDR match). */
export function within(bytes: number[], range: number[], prefix: number): boolean {
  for (let i = 0; i < prefix; i++) {
    const bit = (b: number[]) => (b[i >> 3]! >> (7 - (i & 7))) & 1;
    if (bit(bytes) !== bit(range)) return false;
  }
  return true;
}

/** The 4 or 16 bytes of an IP address; undefined for a name. */
export function addressBytes(address: string): number[] | undefined {
  let text = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(text);
  if (family === 4) return text.split(".").map(Number);
  if (family !== 6) return undefined;
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
