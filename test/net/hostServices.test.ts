/**
 * Every cloud's metadata and host services, one test per entry of the table
 * (lib/net/hostServices.ts), in every spelling a caller could write: dotted, one decimal
 * number, octal, hexadecimal, IPv4-mapped and other IPv6 embeddings, upper case, a trailing
 * dot, a name that resolves there. Each is refused under the service's rule and the library's,
 * even where an operator's WAYFARER_ALLOW_HOSTS lists it or lists everything; its neighbours
 * are not refused as metadata (the table is not a wider net than it says).
 */
import { isIP } from "node:net";
import { describe, expect, it } from "vitest";
import {
  type AddressRule,
  judgeHost,
  LOCAL_RULE,
  STRICT_RULE,
  urlRefusal,
} from "../../lib/net/addressRule.js";
import { HOST_SERVICES } from "../../lib/net/hostServices.js";

const METADATA = /link-local or cloud metadata address/;
const OPEN_EVERYTHING = ["0.0.0.0/0", "::/0"];

/** The rules a host is judged under: the library's, the service's, and both opened wide. */
function rules(listed: string): [string, AddressRule][] {
  return [
    ["LOCAL", LOCAL_RULE],
    ["STRICT", STRICT_RULE],
    ["LOCAL + allow all", { ...LOCAL_RULE, allowHosts: [...OPEN_EVERYTHING, listed] }],
    ["STRICT + allow all", { ...STRICT_RULE, allowHosts: [...OPEN_EVERYTHING, listed] }],
  ];
}

/** Every way to write an IPv4 address in a URL, as the URL parser reads them. */
function v4Spellings(ip: string): string[] {
  const parts = ip.split(".").map(Number);
  const n = parts.reduce((a, p) => a * 256 + p, 0);
  const hex = (i: number) => ((parts[i]! << 8) | parts[i + 1]!).toString(16);
  return [
    ip,
    String(n),
    parts.map((p) => `0${p.toString(8)}`).join("."),
    `0x${n.toString(16)}`,
    parts.map((p) => `0x${p.toString(16)}`).join("."),
    `${parts[0]}.${(parts[1]! << 16) | (parts[2]! << 8) | parts[3]!}`,
    `[::ffff:${ip}]`,
    `[::ffff:${hex(0)}:${hex(2)}]`,
    `[0:0:0:0:0:FFFF:${hex(0)}:${hex(2)}]`,
    `[64:ff9b::${ip}]`,
    `[2002:${hex(0)}:${hex(2)}::]`,
  ];
}

/** An address inside a range (its base plus one), or the address itself. */
function anAddress(match: string): string {
  const [base, bits] = match.split("/") as [string, string | undefined];
  if (bits === undefined) return base;
  if (isIP(base) === 4) return base.replace(/\.0$/, ".1");
  return base.replace(/::$/, "::1");
}

async function expectRefused(host: string, rule: AddressRule, label: string, lookup?: string[]) {
  const verdict = await judgeHost(host, rule, async () => lookup ?? []);
  expect("refused" in verdict && verdict.refused, `${label}: ${host}`).toMatch(METADATA);
}

describe("the clouds' host services", () => {
  for (const service of HOST_SERVICES) {
    it(`refuses ${service.match} (${service.name}) in every spelling, under every rule`, async () => {
      const address = anAddress(service.match);
      const family = isIP(address);
      const spellings =
        family === 4
          ? v4Spellings(address)
          : family === 6
            ? [`[${address}]`, `[${address.toUpperCase()}]`, `[${expand(address)}]`]
            : [address, `${address.toUpperCase()}.`, `${address}.`];
      for (const spelling of spellings) {
        const url = `http://${spelling}/computeMetadata/v1/?recursive=true`;
        const host = new URL(url).hostname;
        for (const [label, rule] of rules(service.match)) {
          await expectRefused(host, rule, `${label}, written ${spelling}`);
          expect(await urlRefusal(url, rule, async () => []), `${label}: ${url}`).toMatch(METADATA);
        }
      }
      if (family !== 0) {
        // A name of the caller's that resolves there, even one the operator lets through by name.
        for (const [label, rule] of rules("innocent.example")) {
          const allowed = { ...rule, allowHosts: [...(rule.allowHosts ?? []), "innocent.example"] };
          await expectRefused("innocent.example", allowed, `${label}, by a name`, [
            "203.0.114.7",
            address,
          ]);
        }
      }
    });
  }

  it("names each service it refuses (not only 'link-local')", async () => {
    const verdict = await judgeHost("168.63.129.16", STRICT_RULE);
    expect(verdict).toEqual({
      refused:
        "it is a link-local or cloud metadata address (Azure WireServer (host agent, goal state, DNS))",
    });
  });

  it("is no wider than it says: the neighbours of a service's address are judged as any other", async () => {
    for (const neighbour of ["168.63.129.15", "168.63.129.17", "192.0.0.191", "100.100.100.201"]) {
      expect(await judgeHost(neighbour, LOCAL_RULE), neighbour).toEqual({ addresses: [neighbour] });
    }
    for (const name of ["metadata.example", "my-metadata.google.internal.example"]) {
      expect(await judgeHost(name, LOCAL_RULE, async () => ["203.0.114.7"])).toEqual({
        addresses: ["203.0.114.7"],
      });
    }
  });

  it("refuses the special-purpose ranges to a service, and lets the library's own machine reach them", async () => {
    for (const address of [
      "192.0.2.1",
      "198.18.0.1",
      "198.19.255.1",
      "198.51.100.1",
      "203.0.113.1",
      "192.88.99.1",
      "224.0.0.251",
      "239.255.255.250",
      "240.0.0.1",
      "255.255.255.255",
      "ff02::1",
      "fec0::1",
      "2001:db8::1",
      "100::1",
    ]) {
      const strict = await judgeHost(address, STRICT_RULE);
      expect("refused" in strict && strict.refused, address).toMatch(/private address/);
      expect(await judgeHost(address, LOCAL_RULE), address).toEqual({ addresses: [address] });
    }
  });
});

/** An IPv6 address with every group written out. */
function expand(address: string): string {
  const [head, tail] = address.split("::") as [string, string | undefined];
  const before = head ? head.split(":") : [];
  const after = tail ? tail.split(":") : [];
  const zeros = Array(8 - before.length - after.length).fill("0000");
  return [...before, ...zeros, ...after].map((g) => g.padStart(4, "0")).join(":");
}
