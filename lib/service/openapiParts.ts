/**
 * The pieces the OpenAPI document is built of: JSON Schema from the zod wire schemas, the
 * security schemes and header parameters, the answer headers, and the failures by status with
 * the error classes that answer each (from the error registry and the service's own refusals,
 * through the same `statusOf` the service answers with).
 */
import { z } from "zod";
import { ERROR_REGISTRY } from "../errorRegistry.js";
import { statusOf } from "./answers.js";
import { QuotaExceeded } from "./quotas.js";
import {
  CallerBrowserUnreachable,
  OwnerUnreachable,
  ServiceFull,
  ServiceStopping,
  SessionBusyError,
  SessionGone,
  SessionNotFound,
} from "./serviceErrors.js";

const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/**
 * zod's metadata, less a `type` written for the options reference ("number (ms, 1–600000)"):
 * that is no JSON Schema type, and the schema's own (integer) is the true one.
 */
const metadata = {
  get(schema: z.core.$ZodType) {
    const meta = z.globalRegistry.get(schema);
    if (typeof meta?.type !== "string" || JSON_TYPES.has(meta.type)) return meta;
    const { type: _, ...rest } = meta;
    return rest;
  },
} as unknown as z.core.$ZodRegistry<z.core.GlobalMeta>;

/** A body as the route reads it (`input`) or as it answers (`output`), in JSON Schema 2020-12. */
export const json = (schema: z.ZodType, io: "input" | "output"): Record<string, unknown> => {
  const { $schema: _, ...body } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
    metadata,
  });
  return body;
};

/** `{success: true, data}`, the v1 answer. */
export const success = (data: z.ZodType) =>
  json(z.object({ success: z.literal(true), data }), "output");

const KEY_HEADERS =
  "Keys are compared by digest in constant time; a session belongs to its key's project.";

export const SECURITY_SCHEMES = {
  wfApiKey: {
    type: "apiKey",
    in: "header",
    name: "x-wf-api-key",
    description: `A project's API key (WAYFARER_API_KEYS, or the key the service made at its first start). ${KEY_HEADERS}`,
  },
  bbApiKey: {
    type: "apiKey",
    in: "header",
    name: "x-bb-api-key",
    description:
      "The same key under the name v3 clients send it (x-wf-api-key wins when both are sent).",
  },
  modelApiKey: {
    type: "apiKey",
    in: "header",
    name: "x-model-api-key",
    description:
      "The model provider's key for this session's model calls (at /start) or this call's. Used for those calls only: never written to disk, a log or an answer. Without it, a provider/model name uses the operator's key, when the operator set one.",
  },
  viewToken: {
    type: "apiKey",
    in: "header",
    name: "x-wf-view-token",
    description:
      "A session's read-only view token: the fragment of its dashboard link (`sessionUrl`). Never the API key, which these routes do not take.",
  },
  metricsToken: {
    type: "http",
    scheme: "bearer",
    description: "WAYFARER_METRICS_TOKEN, when the operator set one.",
  },
  mcpBearer: {
    type: "http",
    scheme: "bearer",
    description:
      "/mcp only: the project's API key as `Authorization: Bearer <key>`, as MCP clients send it (x-wf-api-key works there too).",
  },
  cdpToken: {
    type: "apiKey",
    in: "query",
    name: "token",
    description:
      "A short-lived token minted for one session, in the CDP URL the service hands out (`cdpUrl`, `connectUrl`, `wsUrl`).",
  },
} as const;

/** What a keyed route takes: either spelling of the key. */
export const KEYED = [{ wfApiKey: [] }, { bbApiKey: [] }];
/** A route that may call a model: the key, and the model key when the caller brings one. */
export const KEYED_WITH_MODEL = [
  { wfApiKey: [], modelApiKey: [] },
  { bbApiKey: [], modelApiKey: [] },
  ...KEYED,
];

export const PARAMETERS = {
  SessionId: {
    name: "id",
    in: "path",
    required: true,
    description: "The session's id, as /start answered it.",
    schema: { type: "string", minLength: 1 },
  },
  StreamResponse: {
    name: "x-stream-response",
    in: "header",
    required: false,
    description:
      "`true` answers SSE frames instead of one JSON body (the body's `streamResponse` asks the same; this header wins when both are given, so `false` turns a body's `true` off).",
    schema: { type: "string", enum: ["true", "false"] },
  },
  CacheBypass: {
    name: "browserbase-cache-bypass",
    in: "header",
    required: false,
    description:
      "`true` skips the server cache for this call (v3 clients send it when their serverCache is off). The body's `options.serverCache: false` does the same.",
    schema: { type: "string", enum: ["true", "false"] },
  },
  XCacheBypass: {
    name: "x-cache-bypass",
    in: "header",
    required: false,
    description: "The same as browserbase-cache-bypass.",
    schema: { type: "string", enum: ["true", "false"] },
  },
  RequestId: {
    name: "x-request-id",
    in: "header",
    required: false,
    description:
      "Your id for this request (1–128 of `A-Za-z0-9._:;=+/@-`: a UUID, a trace id); one is made when absent or not plain. Answered back, and named in the request's log lines.",
    schema: { type: "string", maxLength: 128 },
  },
} as const;

export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
export const parameter = (name: keyof typeof PARAMETERS) => ref("parameters", name);

export const HEADERS = {
  ServerTiming: {
    description:
      "`op;dur=<ms>`: the operation's own time, to tell it from what HTTP and the service add.",
    schema: { type: "string" },
  },
  CacheStatus: {
    description:
      "The server cache's verdict for this call: HIT (answered from an entry; act performs the recorded action again) or MISS (run, and kept). Absent when the cache was not asked (off, bypassed, or a call that asks no model). A stream says it as `cacheHit` in its finished frame.",
    schema: { type: "string", enum: ["HIT", "MISS"] },
  },
  XCacheStatus: {
    description: "The same as browserbase-cache-status.",
    schema: { type: "string", enum: ["HIT", "MISS"] },
  },
  RetryAfter: {
    description: "Seconds until trying again may succeed (a minute's rate or budget).",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  RequestId: {
    description: "The request's id: the one it came with, or one made here.",
    schema: { type: "string" },
  },
  XShouldRetry: {
    description:
      "`false`: trying again will not help soon (a quota that waiting a minute cannot lift, a provider that refused the request itself), so a client that retries every 429 or 502 should not.",
    schema: { type: "string", enum: ["false"] },
  },
} as const;
export const header = (name: keyof typeof HEADERS) => ref("headers", name);

/** What each failure status means here; the classes that answer it are added from the registry. */
const MEANING: Record<number, { summary: string; example: string }> = {
  400: {
    summary: "Bad input: the message names the field and what was expected.",
    example: "act body: ✖ expected an instruction, or an Action from observe() → at input",
  },
  401: {
    summary: "No valid API key in x-wf-api-key (or x-bb-api-key).",
    example: "A valid API key is required in the x-wf-api-key header (or x-bb-api-key).",
  },
  404: {
    summary:
      "No such session in the key's project (another project's session answers the same), no such page (`frameId`), or no such context.",
    example: "No session 2b0c6f3e-1a5d-4c1b-9a57-6c2d1e8f4a10: it ended, or it never existed.",
  },
  409: {
    summary:
      "Another operation of the session is under way: one runs at a time. For a context: a live session holds it.",
    example: "The session is busy with act: one operation at a time (end it with /end).",
  },
  410: {
    summary: "Shared mode: the instance that held the session stopped, and its browser with it.",
    example:
      "The session 2b0c6f3e-1a5d-4c1b-9a57-6c2d1e8f4a10 is gone: the instance that held it (i-2) stopped, and its browser with it. Start a new session.",
  },
  413: {
    summary: "The body is over the service's limit (4 MB).",
    example: "Request body is too large",
  },
  422: {
    summary:
      "The model cannot do what was asked (an agent mode it cannot run), or its data does not match the schema.",
    example: 'agentExecute: the model "openai/gpt-4.1-mini" cannot run mode "cua".',
  },
  429: {
    summary:
      "Too many requests for the key's project (WAYFARER_RATE_LIMIT a minute; `retry-after` says when), or a quota of the project is reached (its sessions, a day's budget, a token cap; `x-should-retry: false` when waiting will not lift it).",
    example:
      "Too many requests for this key's project: 1200 a minute (WAYFARER_RATE_LIMIT); try again in 12 s.",
  },
  500: {
    summary:
      "The service's own failure (a browser that did not start, an error of no known class): for the operator to look at.",
    example: "init: the browser did not start within 30000 ms.",
  },
  501: {
    summary:
      "What this service does not offer here: contexts in shared mode, a web search without a backend.",
    example:
      "Contexts are not offered in shared mode yet: each instance keeps its own data folder, and a context must be the same on every instance. Run one instance for jobs that need one.",
  },
  502: {
    summary:
      "A site, the model provider, the caller's own browser (`browser.cdpUrl`), or the instance that holds the session failed.",
    example: "act: the model provider answered 401 (check the model key).",
  },
  503: {
    summary: "No room for another session here, or the service is shutting down.",
    example:
      "The service is full: 8 sessions at most (WAYFARER_MAX_SESSIONS); end one or try again later.",
  },
  504: {
    summary: "A deadline passed: a navigation's, or the operation's `timeout`.",
    example: "act: 30000 ms passed waiting for the DOM to settle (steps: snapshot)",
  },
};

/** The service's own refusals, by the status the service answers them with. */
const OWN_REFUSALS = [
  new SessionNotFound(""),
  new SessionBusyError(""),
  new SessionGone(""),
  new OwnerUnreachable(""),
  new CallerBrowserUnreachable(""),
  new ServiceFull(""),
  new ServiceStopping(""),
  new QuotaExceeded("", ""),
];

/** The error names (`error.name`) a status is answered with. */
function namesOf(status: number): string[] {
  const registered = ERROR_REGISTRY.filter((e) => e.status === status).map((e) => e.name);
  const own = OWN_REFUSALS.filter((e) => statusOf(e) === status).map((e) => e.name);
  return [...own, ...registered];
}

const failureHeaders = (status: number) => ({
  ...(status === 429 ? { "retry-after": header("RetryAfter") } : {}),
  ...(status === 429 || status === 502 ? { "x-should-retry": header("XShouldRetry") } : {}),
  "x-request-id": header("RequestId"),
});

/** One failure answer: what it means, the classes that answer it, an example body. */
function failure(status: number) {
  const { summary, example } = MEANING[status]!;
  const names = namesOf(status);
  const name = names[0];
  return {
    description: names.length
      ? `${summary} \`error.name\`: ${names.map((n) => `\`${n}\``).join(", ")}.`
      : summary,
    headers: failureHeaders(status),
    content: {
      "application/json": {
        schema: ref("schemas", "FailureBody"),
        example:
          name === undefined || status === 401
            ? { success: false, message: example }
            : {
                success: false,
                message: example,
                error: { name, code: codeOf(name), message: example },
              },
      },
    },
  };
}

const codeOf = (name: string) =>
  ERROR_REGISTRY.find((e) => e.name === name)?.code ??
  (name === "QuotaExceeded" ? QuotaExceeded.code : "SERVICE_ERROR");

/** Every failure status the document uses, as reusable responses (`#/components/responses/F404`). */
export const FAILURE_RESPONSES = {
  ...Object.fromEntries(
    Object.keys(MEANING).map((status) => [`F${status}`, failure(Number(status))]),
  ),
  RefusedTarget: {
    description:
      "The request-target has no single meaning (dot segments, an empty or encoded slash, matrix parameters…): send the path in its plain form. Any route may answer it, before routing.",
    headers: { "x-request-id": header("RequestId") },
    content: {
      "application/json": {
        schema: ref("schemas", "FailureBody"),
        example: {
          success: false,
          message:
            "The request-target is refused (a dot segment): send the path in its plain form, e.g. /v1/sessions/start.",
        },
      },
    },
  },
};

/** What a public route may answer beside its own: a refused spelling of its path. */
export const PUBLIC_FAILURES = { "400": ref("responses", "RefusedTarget") };

/** The failures a route may answer, as references. */
export const failures = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), ref("responses", `F${s}`)]));

/** What every keyed route may answer before its handler runs. */
export const KEYED_FAILURES = [400, 401, 413, 429, 503];
/** What a route on one session may answer beside those. */
export const SESSION_FAILURES = [...KEYED_FAILURES, 404, 410, 502];
/** What an operation on a session may answer beside those. */
export const OPERATION_FAILURES = [...SESSION_FAILURES, 409, 422, 500, 504];

/** A public route's security: none. */
export const PUBLIC: never[] = [];

export const jsonContent = (schema: unknown, example?: unknown) => ({
  "application/json": { schema, ...(example === undefined ? {} : { example }) },
});

/** A route that answers a plain JSON object (platform, health, the dashboard's link). */
export const plain = (
  spec: { operationId: string; summary: string; description?: string; tag: string },
  schema: z.ZodType,
  example: unknown,
  extra: { security?: unknown[]; failures?: number[]; body?: unknown } = {},
) => ({
  operationId: spec.operationId,
  summary: spec.summary,
  ...(spec.description ? { description: spec.description } : {}),
  tags: [spec.tag],
  security: extra.security ?? KEYED,
  ...(extra.body ? { requestBody: extra.body } : {}),
  responses: {
    200: { description: "The answer.", content: jsonContent(json(schema, "output"), example) },
    ...(extra.security === PUBLIC ? PUBLIC_FAILURES : failures(...(extra.failures ?? []))),
  },
});

/** A public page: the page, or a refused spelling of its path. */
export const page = (description: string, type = "text/html") => ({
  200: { description, content: { [type]: { schema: { type: "string" } } } },
  ...PUBLIC_FAILURES,
});

/**
 * Every operation takes `x-request-id` and every answer carries it (the service tags each
 * request before anything else): added here to all, so no route is left without.
 */
export function withRequestIds<P extends Record<string, Record<string, unknown>>>(paths: P): P {
  const methods = ["get", "post", "put", "delete", "patch", "head"];
  for (const item of Object.values(paths)) {
    for (const method of methods) {
      const op = item[method] as
        | { parameters?: unknown[]; responses: Record<string, { headers?: object; $ref?: string }> }
        | undefined;
      if (!op) continue;
      op.parameters = [...(op.parameters ?? []), parameter("RequestId")];
      for (const response of Object.values(op.responses)) {
        if (response.$ref) continue;
        response.headers = { ...response.headers, "x-request-id": header("RequestId") };
      }
    }
  }
  return paths;
}
