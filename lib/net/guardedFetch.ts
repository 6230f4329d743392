/**
 * A `fetch` for requests a caller aims (a model `baseURL` named in a service call): the host is
 * judged by the address rule once, and the connection goes to the very address that was judged
 * (the name is kept for the Host header and TLS), so a second DNS answer cannot swap in another
 * one (rebinding). It follows no redirect: a 3xx is handed back as it is, so a hop to a refused
 * address is never made. A refused host is an error before any connection is opened.
 */
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { pipeline, Readable, Transform } from "node:stream";
import { type AddressRule, judgeHost, type Lookup } from "./addressRule.js";

/** The most a caller's endpoint may answer (a model's answer is far smaller). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** A host the rule refuses, or that resolves to nothing: no connection was opened. */
export class RefusedAddressError extends Error {
  override name = "RefusedAddressError";
}

/** The same fetch without redirects: for endpoints the operator configured (not judged). */
export const noRedirectFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, redirect: "manual" });

export function guardedFetch(rule: AddressRule, lookup?: Lookup): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new RefusedAddressError(`only http(s) endpoints may be called, not ${url.protocol}`);
    }
    const verdict = await judgeHost(url.hostname, rule, lookup);
    if ("refused" in verdict) throw new RefusedAddressError(`${url.hostname}: ${verdict.refused}`);
    const address = verdict.addresses[0];
    if (!address) throw new RefusedAddressError(`${url.hostname} does not resolve`);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    return send(url, address, request, body);
  };
}

function send(
  url: URL,
  address: string,
  request: Request,
  body: Buffer | undefined,
): Promise<Response> {
  const family = isIP(address) === 6 ? 6 : 4;
  // Whatever name the socket asks for, it gets the judged address.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body) headers["content-length"] = String(body.length);
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const outgoing = client.request(
      url,
      {
        method: request.method,
        headers,
        lookup: pinned,
        // A literal address is kept as it is; a name is what TLS checks the certificate against.
        ...(url.protocol === "https:" && isIP(url.hostname.replace(/^\[|\]$/g, "")) === 0
          ? { servername: url.hostname }
          : {}),
        signal: request.signal,
        agent: false,
      },
      (incoming) => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const v of [value ?? []].flat()) answer.append(name, v);
        }
        const status = incoming.statusCode ?? 502;
        const empty = status === 204 || status === 304 || request.method === "HEAD";
        if (empty) incoming.resume();
        // An endpoint of the caller's may answer without end: past the cap the answer is cut.
        const capped = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            received += chunk.length;
            if (received > MAX_ANSWER_BYTES) {
              done(new RefusedAddressError(`the answer passed ${MAX_ANSWER_BYTES} bytes`));
            } else done(null, chunk);
          },
        });
        let received = 0;
        if (!empty) pipeline(incoming, capped, () => {});
        resolve(
          new Response(empty ? null : (Readable.toWeb(capped) as ReadableStream), {
            status,
            statusText: incoming.statusMessage,
            headers: answer,
          }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}
