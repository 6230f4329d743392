/**
 * A JSON POST to a service's /v1 path, as every service bench sends its calls: the answer, the
 * round trip, and the operation's own time inside the service (its `server-timing`), whose
 * difference is the service's share (HTTP, JSON, auth, routing).
 */
export interface V1Answer {
  status: number;
  json: { success?: boolean; data?: unknown };
  /** The round trip, ms. */
  ms: number;
  /** The operation's own time as the service reports it, ms; undefined where it reports none. */
  own: number | undefined;
  headers: Headers;
}

export async function postV1(
  base: string,
  headers: Record<string, string>,
  path: string,
  body: unknown,
): Promise<V1Answer> {
  const t0 = performance.now();
  const response = await fetch(`${base}/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as V1Answer["json"];
  const ms = performance.now() - t0;
  const own = response.headers.get("server-timing")?.match(/dur=([\d.]+)/)?.[1];
  return {
    status: response.status,
    json,
    ms,
    own: own === undefined ? undefined : Number(own),
    headers: response.headers,
  };
}
