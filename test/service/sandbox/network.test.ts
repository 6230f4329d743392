/**
 * The host's network, through the real CDP proxy: whatever a key holder sends over `connectUrl`
 * or runs in a page, the session's browser reaches only what the service's rule lets through
 * (here 127.0.0.1). A server on 127.0.0.2 stands for the host's network and a proxy of the
 * caller's on 127.0.0.3 for a way around the egress guard: neither may see a request. A context
 * that would skip the guard is refused with a CDP error naming the method.
 */
import { createSocket, type Socket } from "node:dgram";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerText, evaluate, openPage, refusalPattern } from "../../support/cdpClient.js";
import { cdpSession, eventually, pause, useRecordingServer } from "../../support/sandbox.js";
import { useService } from "../../support/service.js";

const service = useService();
const host = useRecordingServer("127.0.0.2");
const callersProxy = useRecordingServer("127.0.0.3");

/** A UDP socket on the host's loopback: what a STUN server there would receive. */
let udp: Socket;
const packets: Buffer[] = [];
beforeAll(async () => {
  udp = createSocket("udp4");
  udp.on("message", (message) => packets.push(message));
  await new Promise<void>((done) => udp.bind(0, "127.0.0.2", () => done()));
});
afterAll(() => new Promise<void>((done) => udp.close(() => done())));

/** How long a request that must not arrive is given to arrive. */
const CHANCE_MS = 2_000;

/**
 * Opens a page of the context on the host's network and fetches from it: what the context
 * could reach. Nothing when the context was refused.
 */
async function reachFrom(
  a: Awaited<ReturnType<typeof cdpSession>>,
  browserContextId: string,
  label: string,
) {
  const { sessionId } = await openPage(a.cdp, undefined, browserContextId);
  await a.cdp.answer("Page.navigate", { url: `${host.origin}/${label}-navigate` }, sessionId);
  await evaluate(
    a.cdp,
    sessionId,
    `fetch(${JSON.stringify(`${host.origin}/${label}-fetch`)}).then(r => r.status, () => 0)`,
  ).catch(() => 0);
  await eventually(() => host.seen.length > 0, CHANCE_MS);
}

describe("the host's network through CDP", () => {
  it("refuses a browser context with proxyServer direct://, and nothing reaches the host", async () => {
    host.seen.length = 0;
    const a = await cdpSession(service);
    try {
      const created = await a.cdp.answer("Target.createBrowserContext", {
        proxyServer: "direct://",
      });
      if ("result" in created) await reachFrom(a, created.result.browserContextId, "direct");
      expect(host.seen).toEqual([]);
      expect(answerText(created)).toMatch(refusalPattern("Target.createBrowserContext"));
    } finally {
      await a.end();
    }
  });

  it("refuses a browser context behind a proxy of the caller's; the proxy sees nothing", async () => {
    host.seen.length = 0;
    callersProxy.seen.length = 0;
    const a = await cdpSession(service);
    try {
      const created = await a.cdp.answer("Target.createBrowserContext", {
        proxyServer: callersProxy.origin,
      });
      if ("result" in created) {
        const { sessionId } = await openPage(a.cdp, undefined, created.result.browserContextId);
        // A site (which Chromium asks of that proxy), the cloud's metadata service, and the
        // host's loopback (which Chromium reaches around any proxy, by its implicit bypass).
        for (const url of [
          "http://example.test/via-proxy",
          "http://169.254.169.254/latest/meta-data/",
          `${host.origin}/via-proxy`,
        ]) {
          await a.cdp.answer("Page.navigate", { url }, sessionId);
        }
        await eventually(() => callersProxy.seen.length > 0 && host.seen.length > 0, CHANCE_MS);
      }
      expect(callersProxy.seen).toEqual([]);
      expect(host.seen).toEqual([]);
      expect(answerText(created)).toMatch(refusalPattern("Target.createBrowserContext"));
    } finally {
      await a.end();
    }
  });

  it("refuses proxyBypassList, alone or with a proxy", async () => {
    host.seen.length = 0;
    const a = await cdpSession(service);
    try {
      for (const params of [
        { proxyBypassList: "<-loopback>;127.0.0.2" },
        { proxyServer: callersProxy.origin, proxyBypassList: "*" },
      ]) {
        const created = await a.cdp.answer("Target.createBrowserContext", params);
        if ("result" in created) await reachFrom(a, created.result.browserContextId, "bypass");
        expect(host.seen, JSON.stringify(params)).toEqual([]);
        expect(answerText(created), JSON.stringify(params)).toMatch(
          refusalPattern("Target.createBrowserContext"),
        );
      }
    } finally {
      await a.end();
    }
  });

  it("keeps a browser context created without proxy settings behind the egress guard", async () => {
    host.seen.length = 0;
    const a = await cdpSession(service);
    try {
      const { browserContextId } = await a.cdp.send("Target.createBrowserContext", {});
      const { sessionId } = await openPage(a.cdp, undefined, browserContextId);
      const navigated = await a.cdp.send(
        "Page.navigate",
        { url: `${host.origin}/plain-context` },
        sessionId,
      );
      expect(navigated.frameId).toEqual(expect.any(String));
      const status = await evaluate(
        a.cdp,
        sessionId,
        `fetch(${JSON.stringify(`${host.origin}/plain-fetch`)}).then(r => r.status, () => 0)`,
      );
      // The guard answers for the host it refuses (a 403), or the fetch fails: never the host.
      expect(status).not.toBe(200);
      await pause(500);
      expect(host.seen).toEqual([]);
    } finally {
      await a.end();
    }
  });

  it("sends no WebRTC UDP (STUN) to the host's loopback, from the session's own context or a new one", async () => {
    packets.length = 0;
    const { port } = udp.address();
    const a = await cdpSession(service);
    const offer = `(async () => {
      const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.2:${port}" }] });
      pc.createDataChannel("x");
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((done) => {
        pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && done();
        setTimeout(done, 4000);
      });
      return pc.localDescription.sdp;
    })()`;
    try {
      const contexts: (string | undefined)[] = [undefined];
      const { browserContextId } = await a.cdp.send("Target.createBrowserContext", {});
      contexts.push(browserContextId);
      // Before the policy, a context that skips the proxy: WebRTC's rule is the proxy's.
      const direct = await a.cdp.answer("Target.createBrowserContext", {
        proxyServer: "direct://",
      });
      if ("result" in direct) contexts.push(direct.result.browserContextId);
      for (const context of contexts) {
        const { sessionId } = await openPage(a.cdp, undefined, context);
        const sdp = String(await evaluate(a.cdp, sessionId, offer));
        // The offer was made (WebRTC itself works), and nothing reached the STUN address.
        expect(sdp).toContain("m=application");
        await eventually(() => packets.length > 0, 1_000);
        expect(packets.length, `context ${context ?? "(the session's own)"}`).toBe(0);
      }
    } finally {
      await a.end();
    }
  });
});
