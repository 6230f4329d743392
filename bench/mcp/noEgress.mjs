/**
 * Preloaded into both MCP servers (NODE_OPTIONS=--import): a connection from the server's own
 * Node process to anything but the loopback is refused and told on stderr, which the bench
 * reads. The bench's loopback guard sees only its own process; the servers are children.
 * Their browsers are kept off the network by the corpus' proxy and host-resolver switches.
 */
import { Socket } from "node:net";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|localhost)$/i;
export const REFUSED = "wayfarer-bench: refused a connection to";

const connect = Socket.prototype.connect;
Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  let host;
  if (typeof first === "object" && first !== null) {
    host = first.path ? undefined : (first.host ?? "localhost");
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    host = typeof args[1] === "string" ? args[1] : "localhost";
  }
  if (host !== undefined && !LOOPBACK.test(host)) {
    process.stderr.write(`${REFUSED} ${host}\n`);
    process.nextTick(() => this.destroy(new Error(`the bench allows only loopback, not ${host}`)));
    return this;
  }
  return connect.apply(this, args);
};
