/**
 * The job's egress guard: on by default, every request of its browser (sub-resources included)
 * under the job's address rule. The page (test/fixtures/job/metadata.html, on 127.0.0.1, the job's
 * own address) asks in every way a page can for a metadata-like path on 127.0.0.2, a loopback
 * address the rule refuses, where a server of the test listens and records every connection,
 * request and UDP datagram: with the guard nothing arrives; opted out, everything does (so the
 * page does send it all, and the recorder would see it).
 */
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceValidationError } from "../../lib/errors.js";
import { resolveJob } from "../../lib/job/definition.js";
import { guardedOptions, jobEgressRule, pageVerdict } from "../../lib/job/egress.js";
import { runJob } from "../../lib/job/runJob.js";
import type { LogLine } from "../../lib/log.js";
import { judgeHost } from "../../lib/net/addressRule.js";
import { failure } from "../support/failure.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();

/** Where cloud metadata would be: every TCP connection, HTTP request and datagram it gets. */
const arrived = { connections: 0, paths: [] as string[], datagrams: 0 };
let metadata: Server;
let udp: UdpSocket;
beforeAll(async () => {
  metadata = createServer((req, res) => {
    arrived.paths.push(new URL(req.url ?? "/", "http://x").pathname);
    res.writeHead(200, { "content-type": "text/plain" }).end("secret-credentials");
  });
  metadata.on("connection", () => arrived.connections++);
  metadata.on("upgrade", (req, socket) => {
    arrived.paths.push(new URL(req.url ?? "/", "http://x").pathname);
    socket.destroy();
  });
  udp = createSocket("udp4").on("message", () => arrived.datagrams++);
  await Promise.all([
    new Promise<void>((done) => metadata.listen(0, "127.0.0.2", () => done())),
    new Promise<void>((done) => udp.bind(0, "127.0.0.2", () => done())),
  ]);
});
afterAll(async () => {
  metadata.closeAllConnections();
  udp.close();
  await new Promise((done) => metadata.close(done));
});

const KINDS = ["prefetch", "preload", "style", "script", "fetch", "beacon", "ws", "img", "frame"];

function pageUrl(): string {
  const target = `http://127.0.0.2:${(metadata.address() as AddressInfo).port}`;
  const query = new URLSearchParams({ target, udp: String(udp.address().port) });
  return `${server.url("job/metadata.html")}?${query}`;
}

/** Runs the job (init → goto → close) on the page; the refusal lines its browser logged. */
async function runOnPage(env: Record<string, string> = {}, base: Record<string, unknown> = {}) {
  arrived.connections = 0;
  arrived.paths.length = 0;
  arrived.datagrams = 0;
  const lines: LogLine[] = [];
  const job = resolveJob({ url: pageUrl(), ...base }, env);
  const result = await runJob(job, {
    client: { verbose: 1, disablePino: true, logger: (l) => lines.push(l) },
  });
  // Anything still on its way has had time to land.
  await new Promise((r) => setTimeout(r, 500));
  const refused = lines
    .filter((l) => l.message === "a request was refused by the egress rule")
    .map((l) => String(l.auxiliary?.target));
  return { result, refused };
}

function thrown(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to throw, and it returned");
}

const kindsArrived = () =>
  [...new Set(arrived.paths.map((p) => p.replace("/latest/meta-data/", "")))].sort();

describe("the job's egress guard", () => {
  it("on by default: nothing the page asks for leaves for an address the rule refuses", async () => {
    const { result, refused } = await runOnPage();
    // The page itself loaded (its own address is let through) and its load event came.
    expect(result.url).toBe(pageUrl());
    expect(arrived).toEqual({ connections: 0, paths: [], datagrams: 0 });
    // Asked for and refused at the guard, not lost on the way.
    const port = (metadata.address() as AddressInfo).port;
    for (const kind of ["img", "script", "fetch", "frame"]) {
      expect(refused, kind).toContain(`http://127.0.0.2:${port}/latest/meta-data/${kind}`);
    }
  });

  it("JOB_EGRESS=off (or egress: false) lets every request through, as before the guard", async () => {
    await runOnPage({ JOB_EGRESS: "off" });
    expect(kindsArrived()).toEqual([...KINDS].sort());
    expect(arrived.datagrams).toBeGreaterThan(0);
    await runOnPage({}, { egress: false });
    expect(kindsArrived()).toEqual([...KINDS].sort());
  });

  it("egress.allowHosts lets a listed host through and keeps the guard on for the rest", async () => {
    await runOnPage({}, { egress: { allowHosts: ["127.0.0.2"] } });
    expect(kindsArrived()).toEqual([...KINDS].sort());
    // WebRTC's UDP still never leaves beside the guard.
    expect(arrived.datagrams).toBe(0);
  });
});

describe("the job's rule", () => {
  const lookup = async (host: string) =>
    ({
      "shop.test": ["93.184.216.34"],
      "intranet.test": ["10.1.2.3"],
      // A site on the web whose own DNS points at the function's loopback.
      "rebound.test": ["127.0.0.1"],
    })[host] ?? [];
  const verdict = async (url: string, host: string, egress?: { allowHosts: string[] }) =>
    judgeHost(host, (await jobEgressRule({ url, egress }, {}))!, lookup);

  it("refuses metadata, loopback and private addresses to a page on the web", async () => {
    for (const host of [
      "169.254.169.254",
      "metadata.google.internal",
      "127.0.0.1",
      "10.0.0.1",
      // The clouds' host services (lib/net/hostServices.ts): Azure's WireServer, Alibaba's.
      "168.63.129.16",
      "::ffff:a83f:8110",
      "100.100.100.200",
    ]) {
      expect(await verdict("https://shop.test/", host), host).toHaveProperty("refused");
    }
    // Not even the job's own page opens one: its address is never let through.
    expect(await verdict("http://168.63.129.16/machine/", "168.63.129.16")).toHaveProperty(
      "refused",
    );
    expect(await verdict("https://shop.test/", "shop.test")).toEqual({
      addresses: ["93.184.216.34"],
    });
  });

  it("lets the job's own page through when it is written as a loopback or private address, and nothing else", async () => {
    expect(await verdict("http://127.0.0.1:8080/", "127.0.0.1")).toHaveProperty("addresses");
    expect(await verdict("http://127.0.0.1:8080/", "127.0.0.2")).toHaveProperty("refused");
    expect(await verdict("http://localhost:8080/", "127.0.0.1")).toHaveProperty("addresses");
    expect(await verdict("http://10.1.2.3/", "10.1.2.3")).toHaveProperty("addresses");
    expect(await verdict("http://10.1.2.3/", "169.254.169.254")).toHaveProperty("refused");
  });

  it("never resolves the page's name to open the guard: a site's DNS is the site's", async () => {
    // Pointed at 127.0.0.1 by its owner, the page's name opens nothing of the loopback.
    expect(await verdict("http://rebound.test/", "rebound.test")).toHaveProperty("refused");
    expect(await verdict("http://rebound.test/", "127.0.0.1")).toHaveProperty("refused");
    // An intranet page by name is let through when the job lists it.
    expect(await verdict("http://intranet.test/", "intranet.test")).toHaveProperty("refused");
    const listed = { allowHosts: ["intranet.test"] };
    expect(await verdict("http://intranet.test/", "intranet.test", listed)).toHaveProperty(
      "addresses",
    );
  });

  it("tells before the browser starts that the page itself is refused, or that its name resolves to nothing", async () => {
    const rule = (await jobEgressRule({ url: "http://intranet.test/" }, {}))!;
    const refused = await pageVerdict("http://intranet.test/", rule, lookup);
    expect(refused.refused).toMatch(/^intranet\.test resolves to .*private address/);
    expect(refused.refused).toContain("egress.allowHosts");
    expect(await pageVerdict("http://nowhere.test/", rule, lookup)).toEqual({ unresolved: true });
    expect(await pageVerdict("https://shop.test/", rule, lookup)).toEqual({ unresolved: false });
    // A run on such a page fails as without the guard: the name did not resolve, at goto.
    let step: string | undefined;
    const error = await failure(
      runJob(resolveJob({ url: "https://no-such-host.invalid/" }, {}), {
        client: { disablePino: true },
        onFailure: (last) => (step = last.step),
      }),
    );
    expect(step).toBe("goto");
    expect(error.message).toContain("net::ERR_NAME_NOT_RESOLVED");
  });

  it("JOB_EGRESS is on or off; anything else is refused, naming it", async () => {
    const base = { url: "https://shop.test/" };
    expect(resolveJob(base, { JOB_EGRESS: "off" }).egress).toBe(false);
    expect(resolveJob({ ...base, egress: false }, { JOB_EGRESS: "on" }).egress).toBe(true);
    const kept = { allowHosts: ["10.0.0.0/8"] };
    expect(resolveJob({ ...base, egress: kept }, { JOB_EGRESS: "on" }).egress).toEqual(kept);
    const error = thrown(() => resolveJob(base, { JOB_EGRESS: "maybe" }));
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect(error.message).toContain("JOB_EGRESS");
    expect(error.message).toContain('expected "on" or "off"');
    expect(await jobEgressRule({ ...base, egress: false })).toBeUndefined();
  });

  it("refuses a browser the guard cannot sit in front of, and names the opt-out", async () => {
    const rule = await jobEgressRule({ url: "https://shop.test/" }, {});
    const error = thrown(() =>
      guardedOptions(rule, { localBrowserLaunchOptions: { proxy: { server: "http://p:1" } } }),
    );
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect(error.message).toContain("JOB_EGRESS=off");
  });
});
