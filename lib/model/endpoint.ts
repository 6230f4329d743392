/**
 * Whose endpoint a model configuration calls, and whose key it carries. A service holds its
 * operator's keys (OPENAI_API_KEY, …) for the endpoints the operator configured; a caller who
 * names an endpoint of their own (a baseURL, custom headers, an Azure resource, a Vertex
 * project) must bring their own key for it, or the operator's would be sent there.
 */
import type { ModelConfiguration } from "./config.js";

/** Google's own OAuth endpoints, the only ones a service lets service-account credentials use. */
const GOOGLE_AUTH_URLS = new Set([
  "https://oauth2.googleapis.com/token",
  "https://accounts.google.com/o/oauth2/token",
  "https://accounts.google.com/o/oauth2/auth",
  "https://www.googleapis.com/oauth2/v1/certs",
]);

type Loose = Record<string, unknown> & {
  providerOptions?: { azure?: Record<string, unknown>; vertex?: Record<string, unknown> };
  auth?: Record<string, unknown> & { credentials?: Record<string, unknown> };
};

/**
 * The field (a path in the configuration) that names an endpoint of the caller's; undefined
 * when the configuration calls only what the operator configured (a `provider/model` string,
 * or an object with a key and nothing that moves or changes its requests).
 */
export function ownEndpointField(
  model: ModelConfiguration | Loose | undefined,
): string | undefined {
  if (model === undefined || typeof model === "string") return undefined;
  const m = model as Loose;
  const azure = m.providerOptions?.azure;
  const vertex = m.providerOptions?.vertex;
  const named: [string, unknown][] = [
    ["baseURL", m.baseURL],
    ["headers", m.headers],
    ["providerOptions.azure.resourceName", azure?.resourceName],
    ["providerOptions.azure.baseURL", azure?.baseURL],
    ["providerOptions.azure.headers", azure?.headers],
    ["providerOptions.vertex.project", vertex?.project],
    ["providerOptions.vertex.location", vertex?.location],
    ["providerOptions.vertex.baseURL", vertex?.baseURL],
    ["providerOptions.vertex.headers", vertex?.headers],
  ];
  return named.find(([, value]) => value !== undefined)?.[0];
}

/** Whether the configuration carries a credential of its own (a key, a token, an account). */
export function carriesOwnKey(model: ModelConfiguration | Loose | undefined): boolean {
  if (model === undefined || typeof model === "string") return false;
  const m = model as Loose;
  if (typeof m.apiKey === "string" && m.apiKey !== "") return true;
  return m.auth !== undefined;
}

/**
 * Why a service refuses this configuration from a caller, as [field, what to change]; undefined
 * when it may be used. An endpoint of the caller's needs the caller's key; a service account may
 * only talk to Google's own OAuth endpoints (its `token_uri` is fetched by the service).
 */
export function callerModelRefusal(
  model: ModelConfiguration | Loose | undefined,
): [string, string] | undefined {
  const field = ownEndpointField(model);
  if (field && !carriesOwnKey(model)) {
    return [
      "apiKey",
      `required when the model names its own endpoint (${field}): the service's keys go only to the endpoints its operator configured`,
    ];
  }
  const auth = (model as Loose | undefined)?.auth;
  const credentials = auth?.credentials;
  for (const name of ["token_uri", "auth_uri", "auth_provider_x509_cert_url"]) {
    const url = credentials?.[name];
    if (typeof url === "string" && !GOOGLE_AUTH_URLS.has(url)) {
      return [`auth.credentials.${name}`, "expected Google's own endpoint, or nothing"];
    }
  }
  const universe = auth?.universeDomain;
  if (typeof universe === "string" && universe !== "googleapis.com") {
    return ["auth.universeDomain", 'expected "googleapis.com", or nothing'];
  }
  const cert = credentials?.client_x509_cert_url;
  if (typeof cert === "string" && !cert.startsWith("https://www.googleapis.com/")) {
    return ["auth.credentials.client_x509_cert_url", "expected Google's own endpoint, or nothing"];
  }
  return undefined;
}
