/**
 * Where the remote environment's service is: `WAYFARER_API_URL`, with `/v1` appended when the
 * path does not end with it. Unset, a service on this machine; on a deployment that address is
 * the function's own and reaches nothing, so it is an error that says what to set.
 */
import { onServerlessHost } from "../browser/chromiumPack.js";
import { MissingEnvironmentVariableError, ServiceEnvironmentError } from "../errors.js";

export const LOCAL_SERVICE = "http://127.0.0.1:3000/v1";

export function serviceBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.WAYFARER_API_URL?.trim();
  if (!given) {
    if (onServerlessHost(env)) {
      throw new MissingEnvironmentVariableError(
        "WAYFARER_API_URL",
        'env "REMOTE" on a deployment (the default http://127.0.0.1:3000 is the function itself)',
      );
    }
    return LOCAL_SERVICE;
  }
  const url = URL.parse(given);
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password) {
    throw new ServiceEnvironmentError(
      "WAYFARER_API_URL must be an http(s) URL without credentials, e.g. https://wayfarer.example.com",
    );
  }
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith("/v1") ? path : `${path}/v1`;
  url.search = "";
  url.hash = "";
  return url.href.replace(/\/+$/, "");
}
