/**
 * The egress guard's worker (lib/browser/egressHost.ts) as a process with nothing else to keep
 * it alive sees it: opening a guard is waited for (a script that opens one and exits once it is
 * closed ends with 0, not with an unsettled await), and junk sent straight to a guard's port, as
 * a local process could, does not end the worker that serves every session.
 */
import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egressWorkerPid, openEgressProxy } from "../../lib/browser/egressHost.js";
import { STRICT_RULE } from "../../lib/net/addressRule.js";

const asRoot = process.platform === "linux" && process.getuid?.() === 0;
const ROOT = join(import.meta.dirname, "..", "..");

describe.skipIf(!asRoot)("the egress guard's worker", () => {
  it("is waited for by a process that has nothing else to wait for", () => {
    const script = `
      import { openEgressProxy } from "./lib/browser/egressHost.ts";
      const proxy = await openEgressProxy({ rule: { refuse: ["loopback"] } });
      console.log("opened", proxy.url);
      await proxy.close();
      console.log("closed");
    `;
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^opened http:\/\/127\.0\.0\.1:\d+\nclosed\n$/);
  });

  it("lives through junk sent straight to a guard's port", async () => {
    const proxy = await openEgressProxy({ rule: { ...STRICT_RULE, allowHosts: ["127.0.0.1"] } });
    const pid = egressWorkerPid()!;
    try {
      const port = Number(new URL(proxy.url).port);
      for (const junk of [
        "CONNECT [::1 HTTP/1.1\r\n\r\n",
        "CONNECT :99999 HTTP/1.1\r\n\r\n",
        "GET http://[ HTTP/1.1\r\n\r\n",
        "GET ws://[::1/ HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
        "\u0000\u0001garbage\r\n\r\n",
        "CONNECT 168.63.129.16:80 HTTP/1.1\r\n\r\n",
        `GET /${"x".repeat(100_000)} HTTP/1.1\r\n\r\n`,
      ]) {
        await new Promise<void>((done) => {
          const socket = connect(port, "127.0.0.1", () => {
            socket.write(junk);
            setTimeout(() => {
              socket.destroy();
              done();
            }, 100);
          });
          socket.on("error", () => done());
        });
      }
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(egressWorkerPid()).toBe(pid);
    } finally {
      await proxy.close();
    }
  });
});
