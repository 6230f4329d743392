/**
 * The egress guard: every request of the browser through a proxy that judges its host by the
 * address rule. A page on 127.0.0.1 (let through) sends every kind of request to a site on
 * 127.0.0.2 (another loopback address, not let through): none may arrive. Without the guard,
 * all do.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceNavigationError, ServiceValidationError } from "../../lib/index.js";
import type { LogLine } from "../../lib/log.js";
import {
  hostJudge,
  judgeHost,
  kindsOf,
  STRICT_RULE,
  urlRefusal,
} from "../../lib/net/addressRule.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { freePort } from "../support/ports.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

/** A site that records the path of every request it gets, WebSocket upgrades included. */
let site: Server;
const arrived: string[] = [];
beforeAll(async () => {
  site = createServer((req, res) => {
    arrived.push(new URL(req.url ?? "/", "http://x").pathname);
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  site.on("upgrade", (req, socket) => {
    arrived.push(new URL(req.url ?? "/", "http://x").pathname);
    socket.destroy();
  });
  await new Promise<void>((done) => site.listen(0, "127.0.0.2", () => done()));
});
afterAll(async () => {
  site.closeAllConnections();
  await new Promise((done) => site.close(done));
});

const KINDS = ["/img", "/script", "/frame", "/fetch", "/xhr", "/ws", "/worker", "/popup"];
const target = () => `http://127.0.0.2:${(site.address() as AddressInfo).port}`;
const pageUrl = () => `${server.url("egress/page.html")}?target=${encodeURIComponent(target())}`;

/** Opens the page and waits until every kind arrived, or `ms` passed. */
async function sendAll(options: Record<string, unknown>, ms: number) {
  arrived.length = 0;
  const lines: LogLine[] = [];
  const client = await clients.open({
    verbose: 1,
    logger: (l: LogLine) => lines.push(l),
    ...options,
  });
  await client.context.activePage()!.goto(pageUrl());
  const until = Date.now() + ms;
  while (Date.now() < until && !KINDS.every((k) => arrived.includes(k))) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return { client, lines };
}

describe("the egress guard", () => {
  it("off (LOCAL's default): every kind of request reaches the other host", async () => {
    await sendAll({}, 10_000);
    expect([...new Set(arrived)].sort()).toEqual([...KINDS].sort());
  });

  it("on: no kind of request reaches a loopback host the rule does not let through", async () => {
    const { client, lines } = await sendAll({ egress: { allowHosts: ["127.0.0.1"] } }, 3_000);
    expect(arrived).toEqual([]);
    // The page itself (127.0.0.1, let through by name) loaded and ran (its popup is refused).
    const page = client.context.pages()[0]!;
    expect(await page.locator("#status").textContent()).toBe("sent");
    const refused = lines.filter((l) => l.message === "a request was refused by the egress rule");
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.auxiliary).toMatchObject({ reason: "it is a loopback address" });
  });

  it("lets a host through by name, and refuses link-local addresses in any spelling", async () => {
    const { client, lines } = await sendAll(
      { egress: { refuse: ["link-local"], allowHosts: [] } },
      10_000,
    );
    expect([...new Set(arrived)].sort()).toEqual([...KINDS].sort());
    const page = client.context.activePage()!.playwrightPage;
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[64:ff9b:1::a9fe:a9fe]/",
      "http://metadata.google.internal/",
    ]) {
      const status = await page.evaluate(
        (u) =>
          fetch(u)
            .then((r) => r.status)
            .catch(() => 0),
        url,
      );
      expect(status, url).not.toBe(200);
    }
    const refused = lines
      .filter((l) => l.message === "a request was refused by the egress rule")
      .map((l) => String(l.auxiliary?.target));
    expect(refused.some((t) => t.includes("169.254.169.254"))).toBe(true);
    expect(refused.some((t) => t.includes("metadata.google.internal"))).toBe(true);
  });

  it("lets goto fail on a site it cannot reach as it would without the guard (its code, not a 502)", async () => {
    const client = await clients.open({ egress: { allowHosts: ["127.0.0.1"] } });
    const url = `http://127.0.0.1:${await freePort()}/`;
    const error = await failure(client.context.activePage()!.goto(url));
    expect(error).toBeInstanceOf(ServiceNavigationError);
    expect(error.message).toContain(`could not open ${url}: the connection was refused`);
  });

  it("refuses a browser it does not launch, or one with a proxy of its own", async () => {
    const error = await failure(
      clients.open({
        egress: {},
        localBrowserLaunchOptions: { proxy: { server: "http://127.0.0.1:9" } },
      }),
    );
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect(error.message).toContain("options.egress");
  });
});

describe("the address rule", () => {
  it("classifies addresses in every spelling", () => {
    expect(kindsOf("10.1.2.3")).toEqual(["private"]);
    expect(kindsOf("172.20.0.1")).toEqual(["private"]);
    expect(kindsOf("172.32.0.1")).toEqual([]);
    expect(kindsOf("192.168.1.1")).toEqual(["private"]);
    expect(kindsOf("100.64.0.1")).toEqual(["private"]);
    expect(kindsOf("127.8.8.8")).toEqual(["loopback"]);
    expect(kindsOf("0.0.0.0")).toEqual(["loopback"]);
    expect(kindsOf("[::1]")).toEqual(["loopback"]);
    expect(kindsOf("::ffff:127.0.0.1")).toEqual(["loopback"]);
    expect(kindsOf("64:ff9b::a00:1")).toEqual(["private"]);
    expect(kindsOf("fd12::1")).toEqual(["private"]);
    expect(kindsOf("fe80::1")).toEqual(["link-local"]);
    expect(kindsOf("2002:a9fe:a9fe::1")).toEqual(["link-local"]);
    expect(kindsOf("Metadata.Google.Internal.")).toEqual(["link-local"]);
    expect(kindsOf("93.184.216.34")).toEqual([]);
    expect(kindsOf("2606:4700::1111")).toEqual([]);
  });

  it("judges a name by every address it resolves to, once per host", async () => {
    const strict = { refuse: ["link-local", "loopback", "private"] as const };
    let lookups = 0;
    const lookup = async (host: string) => {
      lookups++;
      return host === "split.test" ? ["93.184.216.34", "10.0.0.7"] : ["93.184.216.34"];
    };
    expect(await judgeHost("split.test", strict, lookup)).toEqual({
      refused: "split.test resolves to a private address",
    });
    expect(await judgeHost("public.test", strict, lookup)).toEqual({
      addresses: ["93.184.216.34"],
    });
    expect(
      await judgeHost("split.test", { ...strict, allowHosts: ["SPLIT.test"] }, lookup),
    ).toEqual({ addresses: ["93.184.216.34", "10.0.0.7"] });
    // An address or a CIDR range lets the addresses in it through, a literal or a name's.
    const ranges = { ...strict, allowHosts: ["10.0.0.0/8", "::1"] };
    expect(await judgeHost("split.test", ranges, lookup)).toEqual({
      addresses: ["93.184.216.34", "10.0.0.7"],
    });
    expect(await judgeHost("10.200.0.1", ranges, lookup)).toEqual({ addresses: ["10.200.0.1"] });
    expect(await judgeHost("[::1]", ranges, lookup)).toEqual({ addresses: ["::1"] });
    expect(await judgeHost("11.0.0.1", ranges, lookup)).toEqual({ addresses: ["11.0.0.1"] });
    expect(await judgeHost("192.168.0.1", ranges, lookup)).toEqual({
      refused: "it is a private address",
    });
    lookups = 0;
    const judge = hostJudge(strict, lookup);
    await judge("public.test");
    await judge("Public.Test.");
    expect(lookups).toBe(1);
  });

  it("judges a URL the library would fetch for a caller, such as a model's baseURL", async () => {
    const lookup = async (host: string) => (host === "api.test" ? ["93.184.216.34"] : ["10.1.1.1"]);
    expect(await urlRefusal("https://api.test/v1", STRICT_RULE, lookup)).toBeUndefined();
    expect(await urlRefusal("http://[::ffff:7f00:1]:6379/", STRICT_RULE, lookup)).toBe(
      "it is a loopback address",
    );
    expect(await urlRefusal("http://redis.internal/", STRICT_RULE, lookup)).toMatch(/private/);
    expect(await urlRefusal("file:///etc/passwd", STRICT_RULE, lookup)).toMatch(/not an http/);
  });
});
