/**
 * Stand-ins for what a session's browser must never reach, for the sandbox tests
 * (test/service/sandbox/): "the host's network" is a server on another loopback address that
 * records every request, CONNECT and upgrade it gets (as a site or as a caller's proxy); "the
 * host's files" are files of the test outside every session's folder. And a session of the
 * service opened over its `connectUrl` with the raw CDP client.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import type { Session } from "../../lib/service/session.js";
import { type CdpClient, connectCdp, evaluate } from "./cdpClient.js";
import { liveGroupMembers } from "./processes.js";
import { KEYS, type RunningService } from "./service.js";

/** A value no page, folder or answer holds unless it was read from where the test put it. */
export const secretValue = (label: string) =>
  `${label}-${randomBytes(12).toString("hex")}-never-to-be-seen`;

export interface RecordingServer {
  host: string;
  port: number;
  /** http://host:port */
  origin: string;
  /** What arrived: "GET /path", "GET http://x/ (as a proxy)", "CONNECT x:443", "UPGRADE /ws". */
  seen: string[];
}

/** A server on `host` (another loopback address) that records and answers everything. */
export function useRecordingServer(host: string): RecordingServer {
  const recording = { host, port: 0, origin: "", seen: [] as string[] };
  let server: Server | undefined;
  beforeAll(async () => {
    server = createServer((req, res) => {
      recording.seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "text/plain" }).end("the host's network answered");
    });
    server.on("connect", (req, socket) => {
      recording.seen.push(`CONNECT ${req.url}`);
      socket.destroy();
    });
    server.on("upgrade", (req, socket) => {
      recording.seen.push(`UPGRADE ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((done) => server!.listen(0, host, () => done()));
    recording.port = (server.address() as AddressInfo).port;
    recording.origin = `http://${host}:${recording.port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
  });
  return recording;
}

export interface CdpSession {
  id: string;
  connectUrl: string;
  session: Session;
  cdp: CdpClient;
  /** A fresh connectUrl (a new token) for the session. */
  newConnectUrl(): Promise<string>;
  end(): Promise<void>;
}

/**
 * A keepAlive session of `key`'s project (a client that goes away does not end it), opened over
 * its `connectUrl` with the raw client.
 */
export async function cdpSession(service: RunningService, key = KEYS.alpha): Promise<CdpSession> {
  const started = await service.call("POST", "/v1/sessions/start", {
    key,
    body: { browserbaseSessionCreateParams: { keepAlive: true } },
  });
  if (started.status !== 200) throw new Error(`the session did not start: ${started.text}`);
  const id = started.body.data.sessionId as string;
  const newConnectUrl = async () => {
    const info = await service.call("GET", `/v1/sessions/${id}`, { key });
    return info.body.connectUrl as string;
  };
  const connectUrl = await newConnectUrl();
  const cdp = await connectCdp(connectUrl);
  return {
    id,
    connectUrl,
    session: service.service.sessions.find(id)!,
    cdp,
    newConnectUrl,
    async end() {
      await cdp.close();
      await service.call("POST", `/v1/sessions/${id}/end`, { key });
    },
  };
}

/** The session's own folder (profile/, tmp/, downloads/), as the service says it. */
export function browserFolderOf(session: Session): string {
  const folder = (session as { browserFolder?: string }).browserFolder;
  if (!folder) throw new Error("the service does not say the session's browserFolder");
  return folder;
}

/**
 * Every page and frame of the browser (each target, attached for the time of one look): its URL
 * and its document's markup, so that a test can say what the browser shows, OOPIFs included.
 */
export async function everyDocument(cdp: CdpClient): Promise<{ url: string; text: string }[]> {
  const { targetInfos } = await cdp.send("Target.getTargets");
  const documents: { url: string; text: string }[] = [];
  for (const target of targetInfos as { targetId: string; type: string; url: string }[]) {
    if (target.type !== "page" && target.type !== "iframe") continue;
    const attached = await cdp
      .send("Target.attachToTarget", { targetId: target.targetId, flatten: true })
      .catch(() => undefined);
    if (!attached) {
      documents.push({ url: target.url, text: "" });
      continue;
    }
    const sessionId = attached.sessionId as string;
    const text = await evaluate(cdp, sessionId, "document.documentElement?.outerHTML ?? ''").catch(
      () => "",
    );
    const frames = await cdp.send("Page.getFrameTree", {}, sessionId).catch(() => undefined);
    documents.push({ url: target.url, text: String(text) });
    for (const url of frameUrls(frames?.frameTree)) documents.push({ url, text: "" });
    await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  }
  return documents;
}

interface FrameTree {
  frame?: { url?: string };
  childFrames?: FrameTree[];
}

function frameUrls(tree: FrameTree | undefined): string[] {
  if (!tree) return [];
  return [String(tree.frame?.url ?? ""), ...(tree.childFrames ?? []).flatMap(frameUrls)];
}

/**
 * TCP ports a process group listens on: the sockets its members hold (their fds) that the
 * leader's network namespace lists as listening. [] for a browser driven over a pipe.
 */
export function listeningPorts(pgid: number): { pid: number; address: string; port: number }[] {
  const listening = new Map<string, { address: string; port: number }>();
  for (const table of ["tcp", "tcp6"]) {
    let text = "";
    try {
      text = readFileSync(`/proc/${pgid}/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // st 0A: LISTEN; local address as HEXADDR:HEXPORT; the inode is the tenth field.
      if (fields.length < 10 || fields[3] !== "0A") continue;
      const [address, port] = fields[1]!.split(":");
      listening.set(fields[9]!, { address: address!, port: Number.parseInt(port!, 16) });
    }
  }
  const found: { pid: number; address: string; port: number }[] = [];
  for (const pid of liveGroupMembers(pgid)) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link = "";
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      const socket = inode ? listening.get(inode) : undefined;
      if (socket) found.push({ pid, ...socket });
    }
  }
  return found;
}

/** Waits `ms` (for something that must NOT happen to have had its chance). */
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `done()` or `ms` passed; whether it came true. */
export async function eventually(done: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) await pause(50);
  return done();
}
