/**
 * The egress guard's connections carry no root rights. A host's firewall may let only root
 * reach a service of its own (Azure lets only uid 0 talk to its WireServer); a service running
 * as root once made every page's connection as root. Now, as root, every session's guard runs in
 * one process of its own that has dropped to nobody (egressHost.ts): the sockets that reach a
 * site belong to uid 65534, and that process holds no secret of the service's environment.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egressWorkerPid } from "../../../lib/browser/egressHost.js";
import { useService } from "../../support/service.js";

const asRoot = process.platform === "linux" && process.getuid?.() === 0;
const service = useService();

/** A site on 127.0.0.1 (the rule lets it through) that notes each connection's port. */
let site: Server;
const ports: number[] = [];
beforeAll(async () => {
  site = createServer((req, res) => {
    ports.push(req.socket.remotePort!);
    res.writeHead(200, { "content-type": "text/html" }).end("<title>seen</title><p>seen</p>");
  });
  await new Promise<void>((done) => site.listen(0, "127.0.0.1", () => done()));
});
afterAll(async () => {
  site.closeAllConnections();
  await new Promise((done) => site.close(done));
});

/** The uid owning the TCP socket whose local port is `port` (/proc/net/tcp's uid column). */
function socketUid(port: number): number | undefined {
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1]?.split(":")[1];
      if (local && Number.parseInt(local, 16) === port) return Number(fields[7]);
    }
  }
  return undefined;
}

describe.skipIf(!asRoot)("the egress guard of a service running as root", () => {
  it("connects to sites as nobody (uid 65534), from a process with no secret in its environment", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    try {
      ports.length = 0;
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page`;
      const went = await service.call("POST", `/v1/sessions/${id}/navigate`, { body: { url } });
      expect(went.status, went.text).toBe(200);
      expect(ports.length).toBeGreaterThan(0);
      const owners = ports.map(socketUid).filter((uid) => uid !== undefined);
      expect(owners.length).toBeGreaterThan(0);
      expect(new Set(owners)).toEqual(new Set([65_534]));

      const pid = egressWorkerPid();
      expect(pid).toBeGreaterThan(0);
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      expect(status).toMatch(/^Uid:\s+65534\s+65534\s+65534\s+65534$/m);
      expect(status).toMatch(/^Groups:\s*$/m);
      const environment = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
      // Nothing but Node's own IPC channel to the service.
      const names = environment.map((entry) => entry.split("=")[0]!);
      expect(names.filter((name) => !name.startsWith("NODE_CHANNEL_"))).toEqual([]);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});
