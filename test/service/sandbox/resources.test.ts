/**
 * The service's share of the machine, through the real CDP proxy: a message past the size cap
 * closes its connection with 1009 (message too big) before it is held whole, and the service and
 * every other session go on; one token opens a few connections (a reconnect) and is then used up; a
 * session takes a bounded number of connections. (Pages past WAYFARER_MAX_PAGES opened by
 * Target.createTarget in a client's own context: test/service/quotas.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { type CdpClient, CdpRefused, connectCdp } from "../../support/cdpClient.js";
import { cdpSession } from "../../support/sandbox.js";
import { KEYS, useService } from "../../support/service.js";
import { within } from "../../support/waiting.js";

const service = useService();

/** Opens every URL at once: the clients that got in, and the HTTP statuses of those refused. */
async function openAll(urls: string[]): Promise<{ opened: CdpClient[]; refused: number[] }> {
  const settled = await Promise.allSettled(urls.map((url) => connectCdp(url)));
  const opened: CdpClient[] = [];
  const refused: number[] = [];
  for (const s of settled) {
    if (s.status === "fulfilled") opened.push(s.value);
    else refused.push(s.reason instanceof CdpRefused ? s.reason.status : -1);
  }
  return { opened, refused };
}

const closeAll = (clients: CdpClient[]) => Promise.all(clients.map((c) => c.close()));

describe("the CDP proxy's limits", () => {
  it("closes a connection whose message is past the cap with 1009; the service and other sessions go on", async () => {
    const a = await cdpSession(service, KEYS.alpha);
    const b = await cdpSession(service, KEYS.beta);
    try {
      const big = await connectCdp(await a.newConnectUrl());
      // 32 MB: far past a cap of a few MB, and small enough for the test itself to hold.
      const payload = "a".repeat(32 * 2 ** 20);
      big.sendRaw(
        JSON.stringify({
          id: 1,
          method: "Runtime.evaluate",
          params: { expression: `void '${payload}'` },
        }),
      );
      const closed = await within(10_000, "the oversized connection's close", big.closed);
      expect(closed.code).toBe(1009);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      // The session's other connection, another project's session and a new connection work.
      expect((await a.cdp.send("Browser.getVersion")).product).toEqual(expect.any(String));
      expect((await b.cdp.send("Browser.getVersion")).product).toEqual(expect.any(String));
      const again = await connectCdp(await a.newConnectUrl());
      expect((await again.send("Target.getTargets")).targetInfos).toEqual(expect.any(Array));
      await again.close();
    } finally {
      await b.end();
      await a.end();
    }
  });

  it("opens no more than its limit on one token, all at once", async () => {
    const a = await cdpSession(service);
    let opened: CdpClient[] = [];
    try {
      const url = await a.newConnectUrl();
      const result = await openAll(Array.from({ length: 20 }, () => url));
      opened = result.opened;
      expect(result.opened.length).toBeGreaterThanOrEqual(1);
      expect(result.refused.length).toBeGreaterThan(0);
      for (const status of result.refused) expect([401, 429]).toContain(status);
    } finally {
      await closeAll(opened);
      await a.end();
    }
  });

  it("takes a token again only a few times (a reconnect, not a reusable key); a fresh token opens", async () => {
    const a = await cdpSession(service);
    try {
      const url = await a.newConnectUrl();
      const answers: (number | "opened")[] = [];
      for (let i = 0; i < 12; i++) {
        answers.push(
          await connectCdp(url).then(
            async (c) => {
              await c.send("Browser.getVersion");
              await c.close();
              return "opened" as const;
            },
            (error: unknown) => (error instanceof CdpRefused ? error.status : -1),
          ),
        );
      }
      const openings = answers.indexOf(401);
      // Opened at first, then refused for good.
      expect(openings, answers.join(", ")).toBeGreaterThanOrEqual(1);
      expect(openings, answers.join(", ")).toBeLessThanOrEqual(8);
      expect(answers.slice(0, openings)).toEqual(answers.slice(0, openings).map(() => "opened"));
      expect(answers.slice(openings)).toEqual(answers.slice(openings).map(() => 401));
      const fresh = await connectCdp(await a.newConnectUrl());
      await fresh.send("Browser.getVersion");
      await fresh.close();
    } finally {
      await a.end();
    }
  });

  it("takes a bounded number of connections per session, each with a token of its own", async () => {
    const a = await cdpSession(service);
    let opened: CdpClient[] = [];
    try {
      const urls: string[] = [];
      for (let i = 0; i < 32; i++) urls.push(await a.newConnectUrl());
      const result = await openAll(urls);
      opened = result.opened;
      expect(result.opened.length).toBeGreaterThanOrEqual(1);
      expect(result.refused.length).toBeGreaterThan(0);
      for (const status of result.refused) expect([429, 503]).toContain(status);
      // The session's first connection still answers.
      expect((await a.cdp.send("Browser.getVersion")).product).toEqual(expect.any(String));
    } finally {
      await closeAll(opened);
      await a.end();
    }
  });
});
