/**
 * The pipe and the hub take anything a browser writes: messages of any size cut anywhere,
 * truncated, not JSON, answers to nobody's command, floods. Nothing thrown escapes into the
 * process (it would end every session of the service); what cannot be taken ends that one
 * browser's hub, says why, and leaves a hub beside it untouched. The browser here is a stand-in
 * on real streams, scripted to be hostile in ways a real Chromium is only when a page or a
 * compromise makes it so (the real-Chromium attacks are in test/service/sandbox/).
 */
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CdpHub,
  type CdpMessage,
  CLIENT_MAX_IN_FLIGHT,
  HUB_MAX_IN_FLIGHT,
} from "../../lib/browser/cdpHub.js";
import { cdpPipe, MessageReader, type OversizedMessage } from "../../lib/browser/cdpPipe.js";
import { seededRandom } from "../support/random.js";

const CAP = 4_096;

/** A stand-in browser on a real stream pair: what the hub writes is read back here. */
function fakeBrowser({ answerClients = true } = {}) {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const pipe = cdpPipe(toBrowser, fromBrowser, CAP);
  const hub = new CdpHub(pipe);
  const commands: CdpMessage[] = [];
  let sessions = 0;
  let held = "";
  toBrowser.on("data", (chunk: Buffer) => {
    held += chunk.toString();
    let end = held.indexOf("\0");
    while (end !== -1) {
      const command = JSON.parse(held.slice(0, end)) as CdpMessage;
      held = held.slice(end + 1);
      commands.push(command);
      if (command.method === "Target.attachToBrowserTarget") {
        write(`${JSON.stringify({ id: command.id, result: { sessionId: `S${++sessions}` } })}\0`);
      } else if (answerClients && command.method !== "Runtime.evaluate") {
        write(`${JSON.stringify({ id: command.id, result: {}, sessionId: command.sessionId })}\0`);
      }
      end = held.indexOf("\0");
    }
  });
  const write = (text: string | Buffer) => fromBrowser.write(text);
  return { hub, pipe, commands, write, fromBrowser };
}

/** A client of the hub that keeps what it hears and how it was closed. */
async function clientOf(hub: CdpHub) {
  const heard: CdpMessage[] = [];
  let closedWith: string | undefined;
  const client = await hub.connect({
    receive: (message) => heard.push(message),
    closed: (reason) => {
      closedWith = reason;
    },
  });
  return { client, heard, closedWith: () => closedWith };
}

const settle = () => new Promise((r) => setImmediate(r));

const escaped: unknown[] = [];
const keep = (error: unknown) => escaped.push(error);
beforeEach(() => {
  escaped.length = 0;
  process.on("uncaughtException", keep);
});
afterEach(() => {
  process.off("uncaughtException", keep);
  expect(escaped).toEqual([]);
});

describe("the pipe's reader", () => {
  it("cuts any stream at its NULs, whatever the chunks: messages within the cap intact, the rest told by size and edges", () => {
    const random = seededRandom(43);
    for (let round = 0; round < 200; round++) {
      const sent: string[] = [];
      for (let i = 0; i < 1 + Math.floor(random() * 12); i++) {
        const size = Math.floor(random() ** 3 * CAP * 3);
        // Multi-byte characters too: a cut inside one must not mangle a message within the cap.
        const body = "é√x".repeat(size).slice(0, size);
        sent.push(JSON.stringify({ id: i, body }));
      }
      const stream = Buffer.from(sent.map((m) => `${m}\0`).join(""));
      const reader = new MessageReader(CAP);
      const got: string[] = [];
      const oversized: OversizedMessage[] = [];
      for (let at = 0; at < stream.length; ) {
        const length = 1 + Math.floor(random() * random() * 3 * CAP);
        reader.read(
          stream.subarray(at, at + length),
          (m) => got.push(m),
          (m) => oversized.push(m),
        );
        at += length;
      }
      const within = sent.filter((m) => Buffer.byteLength(m) <= CAP);
      const past = sent.filter((m) => Buffer.byteLength(m) > CAP);
      expect(got).toEqual(within);
      expect(oversized.map((m) => m.bytes)).toEqual(past.map((m) => Buffer.byteLength(m)));
      for (const [i, m] of oversized.entries()) {
        expect(past[i]!.startsWith(m.head)).toBe(true);
        expect(past[i]!.endsWith(m.tail)).toBe(true);
        expect(m.head).toMatch(/^\{"id":\d+/);
        expect(m.tail.endsWith('"}')).toBe(true);
      }
    }
  });

  it("holds no more than the cap of a message that never ends (a browser writing forever)", () => {
    const reader = new MessageReader(CAP);
    const chunk = Buffer.alloc(64 * 1024, "a");
    let told = 0;
    for (let i = 0; i < 2_000; i++)
      reader.read(
        chunk,
        () => told++,
        () => told++,
      );
    expect(told).toBe(0);
    // 128 MB went by; what the reader holds is its edges.
    const held = reader as unknown as { parts: Buffer[]; head: Buffer; tail: Buffer };
    expect(held.parts).toEqual([]);
    expect(held.head.length + held.tail.length).toBeLessThanOrEqual(512);
  });
});

describe("the hub, against a hostile browser", () => {
  it("a message that is not JSON ends that hub, tells its clients why, and closes the pipe; a hub beside it goes on", async () => {
    for (const junk of ["{not json", "42", "null", '"text"', "\u0000\u0000", "\uFFFD\uD800"]) {
      const bad = fakeBrowser();
      const good = fakeBrowser();
      const a = await clientOf(bad.hub);
      const b = await clientOf(good.hub);
      const breaches: string[] = [];
      bad.hub.onBreach((reason) => breaches.push(reason));
      bad.write(`${junk}\0`);
      await settle();
      if (junk === "\u0000\u0000") {
        // Two empty messages: empty is not JSON either.
        expect(breaches.length).toBe(1);
      } else {
        expect(breaches, junk).toEqual([expect.stringMatching(/not a JSON object/)]);
      }
      expect(a.closedWith()).toMatch(/not a JSON object/);
      expect(bad.fromBrowser.destroyed).toBe(true);
      // The other browser's client still speaks.
      b.client.send({ id: 7, method: "Browser.getVersion" });
      await settle();
      await settle();
      expect(b.heard.find((m) => m.id === 7)?.result).toEqual({});
      expect(b.closedWith()).toBeUndefined();
    }
  });

  it("an oversized answer fails only the command that asked, on the asker's own id; an oversized event ends the hub", async () => {
    const browser = fakeBrowser({ answerClients: false });
    const a = await clientOf(browser.hub);
    const b = await clientOf(browser.hub);
    a.client.send({ id: 1, method: "Runtime.evaluate", params: {} });
    b.client.send({ id: 1, method: "Runtime.evaluate", params: {} });
    await settle();
    const forwarded = browser.commands.filter((c) => c.method === "Runtime.evaluate");
    expect(forwarded).toHaveLength(2);
    // Sent in pieces, as a pipe delivers a large write.
    const huge = Buffer.from(
      `${JSON.stringify({ id: forwarded[0]!.id, result: { value: "x".repeat(CAP * 5) }, sessionId: forwarded[0]!.sessionId })}\0`,
    );
    for (let at = 0; at < huge.length; at += 1_000) browser.write(huge.subarray(at, at + 1_000));
    await settle();
    expect(a.heard).toEqual([
      {
        id: 1,
        error: {
          code: -32000,
          message: expect.stringMatching(
            /^The browser's answer was \d+ KB, more than the 4 KB a message/,
          ),
        },
      },
    ]);
    expect(b.heard).toEqual([]);
    browser.write(
      `${JSON.stringify({ id: forwarded[1]!.id, result: { value: 2 }, sessionId: forwarded[1]!.sessionId })}\0`,
    );
    await settle();
    expect(b.heard).toEqual([{ id: 1, result: { value: 2 } }]);

    const breaches: string[] = [];
    browser.hub.onBreach((reason) => breaches.push(reason));
    browser.write(
      `${JSON.stringify({ method: "Runtime.consoleAPICalled", params: { args: ["y".repeat(CAP * 2)] }, sessionId: "S1" })}\0`,
    );
    await settle();
    expect(breaches).toEqual([
      expect.stringMatching(
        /^its browser sent a \d+ KB message \(Runtime\.consoleAPICalled\), more than the 4 KB/,
      ),
    ]);
    expect(a.closedWith()).toBe(breaches[0]);
    expect(b.closedWith()).toBe(breaches[0]);
  });

  it("answers to nobody, to another client's ids and for foreign sessions reach no client", async () => {
    const browser = fakeBrowser({ answerClients: false });
    const a = await clientOf(browser.hub);
    const b = await clientOf(browser.hub);
    a.client.send({ id: 5, method: "Runtime.evaluate" });
    await settle();
    const asked = browser.commands.at(-1)!;
    const random = seededRandom(7);
    for (let i = 0; i < 500; i++) {
      const id = Math.floor(random() * 2 ** 31);
      if (id === asked.id) continue;
      browser.write(`${JSON.stringify({ id, result: { stolen: true } })}\0`);
      browser.write(
        `${JSON.stringify({ method: "Page.x", params: {}, sessionId: `S${9 + i}` })}\0`,
      );
    }
    // Truncated: the rest of a message never comes before the next NUL.
    browser.write('{"id":5,"result":');
    await settle();
    await settle();
    expect(a.heard).toEqual([]);
    expect(b.heard).toEqual([]);
  });

  it("refuses a client's commands past its in-flight cap, and all clients' past the hub's, at once and by name", async () => {
    const browser = fakeBrowser({ answerClients: false });
    const clients = await Promise.all([1, 2, 3].map(() => clientOf(browser.hub)));
    const [a, b, c] = clients as [
      Awaited<ReturnType<typeof clientOf>>,
      Awaited<ReturnType<typeof clientOf>>,
      Awaited<ReturnType<typeof clientOf>>,
    ];
    for (let id = 1; id <= CLIENT_MAX_IN_FLIGHT + 10; id++)
      a.client.send({ id, method: "Runtime.evaluate" });
    expect(a.heard).toHaveLength(10);
    expect(a.heard[0]).toEqual({
      id: CLIENT_MAX_IN_FLIGHT + 1,
      error: {
        code: -32000,
        message: expect.stringContaining(
          `this connection has ${CLIENT_MAX_IN_FLIGHT} commands awaiting`,
        ),
      },
    });
    for (let id = 1; id <= CLIENT_MAX_IN_FLIGHT; id++)
      b.client.send({ id, method: "Runtime.evaluate" });
    expect(b.heard).toEqual([]);
    expect(CLIENT_MAX_IN_FLIGHT * 2).toBe(HUB_MAX_IN_FLIGHT);
    c.client.send({ id: 1, method: "Runtime.evaluate" });
    expect(c.heard[0]?.error?.message).toContain(
      `${HUB_MAX_IN_FLIGHT} commands awaiting its answer`,
    );
    await settle();
    expect(browser.commands.filter((m) => m.method === "Runtime.evaluate")).toHaveLength(
      HUB_MAX_IN_FLIGHT,
    );
    // A client gone frees its share.
    a.client.close();
    c.client.send({ id: 2, method: "Runtime.evaluate" });
    expect(c.heard).toHaveLength(1);
    await settle();
    expect(browser.commands.filter((m) => m.method === "Runtime.evaluate")).toHaveLength(
      HUB_MAX_IN_FLIGHT + 1,
    );
    // An answer frees one: b's first, answered, lets b send again.
    const ofB = browser.commands.find(
      (m) => m.method === "Runtime.evaluate" && m.sessionId === "S2",
    )!;
    browser.write(`${JSON.stringify({ id: ofB.id, result: {}, sessionId: "S2" })}\0`);
    await settle();
    expect(b.heard).toEqual([{ id: 1, result: {} }]);
    b.client.send({ id: CLIENT_MAX_IN_FLIGHT + 1, method: "Runtime.evaluate" });
    expect(b.heard).toHaveLength(1);
  });

  it("takes a flood of small events and interleaved answers without holding them", async () => {
    const browser = fakeBrowser();
    const a = await clientOf(browser.hub);
    let sent = "";
    for (let i = 0; i < 20_000; i++)
      sent += `${JSON.stringify({ method: "Network.dataReceived", params: { i }, sessionId: "S1" })}\0`;
    browser.write(sent);
    await settle();
    expect(a.heard).toHaveLength(20_000);
    expect(a.heard.at(-1)).toEqual({ method: "Network.dataReceived", params: { i: 19_999 } });
  });
});
