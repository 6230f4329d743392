/**
 * The egress guard's own process (started by egressHost.ts when the service runs as root): it
 * holds every session's guard and makes their connections as an unprivileged user, so that no
 * request of a page leaves with root's rights where a host's firewall trusts root (Azure lets
 * only uid 0 reach its WireServer). It drops to that user once its code is loaded, keeps no
 * secret (its environment is empty) and ends when the process that started it does.
 *
 * Messages, as plain JSON over the IPC channel: `open {id, rule}` → `opened {id, url}` or
 * `failed {id, message}`; `close {id}` → `closed {id}`; and `refused {id, target, reason}` for
 * each request a guard refuses.
 */

import type { WorkerMessage, WorkerRequest } from "./egressHost.js";
import { type EgressProxy, startEgressProxy } from "./egressProxy.js";

const NOBODY = 65_534;
const send = (message: WorkerMessage) => process.send?.(message);

if (process.getuid?.() === 0) {
  process.setgroups?.([]);
  process.setgid?.(NOBODY);
  process.setuid?.(NOBODY);
}

const proxies = new Map<number, EgressProxy>();

process.on("message", (message: WorkerRequest) => {
  if (message.op === "open") {
    const { id, rule } = message;
    startEgressProxy({
      rule,
      onRefused: (target, reason) => send({ op: "refused", id, target, reason }),
    }).then(
      (proxy) => {
        proxies.set(id, proxy);
        send({ op: "opened", id, url: proxy.url });
      },
      (error: unknown) => send({ op: "failed", id, message: String(error) }),
    );
  } else if (message.op === "close") {
    const proxy = proxies.get(message.id);
    proxies.delete(message.id);
    void (proxy?.close() ?? Promise.resolve()).finally(() =>
      send({ op: "closed", id: message.id }),
    );
  }
});
// The service gone (however it ended): so is every guard.
process.on("disconnect", () => process.exit(0));
send({ op: "ready", uid: process.getuid?.() ?? -1 });
