/**
 * Records every TCP connection this Node process opens, so that the bench can prove at each run
 * that neither engine phoned home (telemetry, a hosted API, a model call): the reference engine
 * bundles several model SDKs and a hosted-API client. Install before the engines are imported.
 * Chromium's own traffic is not seen here; the quiet switches on its command line handle that.
 */
import { Socket } from "node:net";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|localhost)$/i;

export interface LoopbackGuard {
  /** Hosts other than loopback that a connection was opened to. */
  elsewhere(): string[];
  loopbackConnections(): number;
}

export function guardLoopback(): LoopbackGuard {
  const elsewhere = new Set<string>();
  let loopback = 0;
  const connect = Socket.prototype.connect;
  // Every client socket (http, undici's fetch, ws) goes through here; Unix sockets have a path.
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    // net.connect() hands over its already normalized [options, callback] pair.
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    let host: string | undefined;
    if (typeof first === "object" && first !== null) {
      const o = first as { host?: string; path?: string };
      host = o.path ? undefined : (o.host ?? "localhost");
    } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
      host = typeof args[1] === "string" ? args[1] : "localhost";
    }
    if (host !== undefined) {
      if (LOOPBACK.test(host)) loopback++;
      else elsewhere.add(host);
    }
    return (connect as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof Socket.prototype.connect;
  return { elsewhere: () => [...elsewhere], loopbackConnections: () => loopback };
}
