/**
 * The links the service hands out (connectUrl, debug, dashboard) use the base URL clients reach
 * it by: the configured public URL, else the request's host and scheme, which are a trusted
 * proxy's X-Forwarded-Host and X-Forwarded-Proto only when WAYFARER_TRUST_PROXY trusts it; for
 * a request another instance forwarded (shared mode), the base that instance was reached by.
 * Never the bind address.
 */
import type { FastifyRequest } from "fastify";
import type { Session } from "./session.js";

export function publicBase(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? request.forwardedBase ?? `${request.protocol}://${request.host}`;
}

/**
 * The session's dashboard, the shareable link. Its read-only token rides in the fragment: a
 * browser never sends it to a server or in a Referer, and the page takes it out of the address
 * bar once loaded.
 */
export function dashboardLink(base: string, session: Session): string {
  return `${base}/dashboard/${encodeURIComponent(session.id)}#token=${session.viewToken}`;
}
