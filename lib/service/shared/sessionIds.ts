/**
 * In shared mode a session's id names the instance that owns it: `<instance>.<uuid>`. Any
 * instance can route a request for it even when the registry has no entry (Redis restarted
 * empty, or cannot be reached): the instance's own entry gives its address.
 */
import { randomBytes, randomUUID } from "node:crypto";

/** A new instance's id: 10 characters of [a-z0-9], fresh on every start. */
export function newInstanceId(): string {
  return BigInt(`0x${randomBytes(8).toString("hex")}`)
    .toString(36)
    .padStart(10, "0")
    .slice(-10);
}

export function newSessionId(instance: string): string {
  return `${instance}.${randomUUID()}`;
}

/** The instance a session id names; undefined for an id made in embedded mode. */
export function ownerOf(sessionId: string): string | undefined {
  const dot = sessionId.indexOf(".");
  if (dot <= 0) return undefined;
  const owner = sessionId.slice(0, dot);
  return /^[a-z0-9]{1,32}$/.test(owner) ? owner : undefined;
}
