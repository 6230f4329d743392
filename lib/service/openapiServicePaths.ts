/**
 * The OpenAPI paths of what surrounds the v1 protocol: the front page, the API reference and
 * this document, health and metrics, and the live dashboard behind its view tokens.
 */
import {
  DashboardLinkBodySchema,
  DashboardLinkSchema,
  FrontPageSchema,
  HealthSchema,
  ReadySchema,
} from "./answerSchemas.js";
import { EXAMPLES } from "./openapiExamples.js";
import {
  failures,
  json,
  jsonContent,
  KEYED,
  KEYED_FAILURES,
  PUBLIC,
  PUBLIC_FAILURES,
  page,
  parameter,
  plain,
  ref,
  success,
} from "./openapiParts.js";

export function servicePaths() {
  const healthz = plain(
    { operationId: "healthz", summary: "The process answers", tag: "health" },
    HealthSchema,
    { ok: true },
    { security: PUBLIC },
  );
  return {
    "/": {
      get: {
        operationId: "frontPage",
        summary: "The front page",
        description:
          "A small HTML page naming the service, its version and its links; JSON when `Accept` prefers application/json.",
        tags: ["service"],
        security: PUBLIC,
        responses: {
          200: {
            description: "The page, or its JSON.",
            content: {
              "text/html": { schema: { type: "string" } },
              ...jsonContent(json(FrontPageSchema, "output"), EXAMPLES.front.answer),
            },
          },
          ...PUBLIC_FAILURES,
        },
      },
    },
    "/docs": {
      get: {
        operationId: "apiReference",
        summary: "This document, to read and try (Swagger UI)",
        description:
          "Swagger UI, served from the installed package (no CDN). Paste a key under Authorize (wfApiKey, and modelApiKey for calls that ask a model) and try a call. Its assets are under /docs/static/, the document it shows at /docs/json (and /docs/yaml).",
        tags: ["service"],
        security: PUBLIC,
        responses: page("The page."),
      },
    },
    "/v1/openapi.json": {
      get: {
        operationId: "openApiDocument",
        summary: "This document",
        tags: ["service"],
        security: PUBLIC,
        responses: {
          200: {
            description: "The OpenAPI 3.1 document.",
            content: jsonContent({ type: "object" }),
          },
          ...PUBLIC_FAILURES,
        },
      },
    },
    "/healthz": { get: healthz },
    "/health": {
      get: {
        ...healthz,
        operationId: "health",
        description: "The same as /healthz (the Python SDK's local mode polls it).",
      },
    },
    "/readyz": {
      get: {
        operationId: "readyz",
        summary: "Whether a session could be started here now",
        tags: ["health"],
        security: PUBLIC,
        responses: {
          200: {
            description: "Ready, and the room left.",
            content: jsonContent(json(ReadySchema, "output"), EXAMPLES.ready.answer),
          },
          503: {
            description:
              "Not now: shutting down, every session slot taken, or no browser user left; `reason` says which.",
            content: jsonContent(json(ReadySchema, "output"), EXAMPLES.notReady.answer),
          },
          ...PUBLIC_FAILURES,
        },
      },
    },
    "/metrics": {
      get: {
        operationId: "metrics",
        summary: "Prometheus metrics of the service and its process",
        description:
          "No API key. With WAYFARER_METRICS_TOKEN set, that token as `Authorization: Bearer <token>`; without it, open to whoever reaches the port (docs/guide/operations.md).",
        tags: ["health"],
        security: [{ metricsToken: [] }, {}],
        responses: {
          200: {
            description: "The Prometheus text format.",
            content: { "text/plain": { schema: { type: "string" } } },
          },
          400: PUBLIC_FAILURES["400"],
          401: {
            description: "WAYFARER_METRICS_TOKEN is set, and this is not it.",
            content: jsonContent(ref("schemas", "FailureBody")),
          },
        },
      },
    },
    ...dashboardPaths(),
    ...mcpPaths(),
  };
}

/** `/mcp`: one path, three methods, the transport's own JSON-RPC in and out. */
function mcpPaths() {
  const security = [...KEYED, { mcpBearer: [] }];
  const rpcSchema = {
    type: "object",
    required: ["jsonrpc", "error", "id"],
    properties: {
      jsonrpc: { const: "2.0" },
      error: {
        type: "object",
        required: ["code", "message"],
        properties: { code: { type: "integer" }, message: { type: "string" } },
      },
      id: { type: ["string", "integer", "null"] },
    },
  };
  /** `orFailure`: the service's hook may answer first, in its own failure body. */
  const rpcError = (description: string, example: unknown, orFailure = false) => ({
    description,
    content: jsonContent(
      orFailure ? { anyOf: [rpcSchema, ref("schemas", "FailureBody")] } : rpcSchema,
      example,
    ),
  });
  const noSessionId = rpcError("No session id.", {
    jsonrpc: "2.0",
    error: { code: -32000, message: "Bad Request: no mcp-session-id header" },
    id: null,
  });
  const notFound = rpcError(
    "No such MCP session of this key's project: it ended (DELETE, idle, the service's end) or never was. Initialize again.",
    { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
  );
  const refusedKey = {
    description:
      "No valid key (x-wf-api-key or Authorization: Bearer); the answer says `WWW-Authenticate: Bearer`.",
    headers: {
      "www-authenticate": { description: "`Bearer`.", schema: { type: "string" } },
    },
    content: jsonContent(ref("schemas", "FailureBody")),
  };
  const sessionHeader = {
    name: "mcp-session-id",
    in: "header",
    required: false,
    description:
      "The MCP session's id, from the initialize answer's header; it is also the service session's id. Absent only on `initialize`.",
    schema: { type: "string" },
  };
  const base = { tags: ["mcp"], security, parameters: [sessionHeader] };
  return {
    "/mcp": {
      post: {
        ...base,
        operationId: "mcpPost",
        summary: "Send MCP messages (an initialize starts a session)",
        description:
          "A JSON-RPC message of the Model Context Protocol (Streamable HTTP, `Accept: application/json, text/event-stream`). `initialize` without `mcp-session-id` starts a session as /v1/sessions/start does (the same quotas, sandbox and idle end); its answer carries `mcp-session-id` and the dashboard link as `x-wf-session-url`. At initialize only: `x-wf-model` (and `x-model-api-key`) lists the model-backed tools, `x-wf-variables` (base64 JSON `{name: {value, origins}}`) gives `%name%` variables.",
        requestBody: { required: true, content: jsonContent({ type: "object" }) },
        responses: {
          200: {
            description:
              "The answer: one JSON-RPC message, or SSE carrying progress notifications then the answer.",
            headers: {
              "mcp-session-id": {
                description: "The session's id (initialize).",
                schema: { type: "string" },
              },
              "x-wf-session-url": {
                description:
                  "The session's dashboard link (initialize); never in the conversation.",
                schema: { type: "string" },
              },
            },
            content: {
              ...jsonContent({ type: "object" }),
              "text/event-stream": { schema: { type: "string" } },
            },
          },
          202: { description: "A notification or response accepted." },
          400: rpcError("Not JSON-RPC, or no session id on a message other than initialize.", {
            jsonrpc: "2.0",
            error: { code: -32000, message: "Bad Request: no mcp-session-id header" },
            id: null,
          }),
          401: refusedKey,
          404: notFound,
          406: { description: "`Accept` lacks application/json or text/event-stream." },
          ...failures(410, 413, 502),
          429: rpcError(
            "At initialize, the project's sessions or token budget at their limit (a JSON-RPC error); the project's rate limit (WAYFARER_RATE_LIMIT) answers the service's failure body.",
            { jsonrpc: "2.0", error: { code: -32000, message: "Too many sessions" }, id: 1 },
            true,
          ),
          503: rpcError(
            "At initialize, no room for a session (a JSON-RPC error); a service that is stopping answers its failure body.",
            { jsonrpc: "2.0", error: { code: -32000, message: "The service is full" }, id: 1 },
            true,
          ),
        },
      },
      get: {
        ...base,
        operationId: "mcpStream",
        summary: "Listen for the server's own messages (SSE)",
        responses: {
          200: {
            description: "An SSE stream of server messages.",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          400: noSessionId,
          401: refusedKey,
          404: notFound,
          ...failures(410, 429, 502, 503),
        },
      },
      delete: {
        ...base,
        operationId: "mcpEnd",
        summary: "End the MCP session, its session and its browser",
        responses: {
          200: { description: "Ended." },
          400: noSessionId,
          401: refusedKey,
          404: notFound,
          ...failures(410, 429, 502, 503),
        },
      },
    },
  };
}

function dashboardPaths() {
  const notShown = {
    description: "Nothing to show: the token is not valid (or expired), or the session ended.",
    content: jsonContent(ref("schemas", "FailureBody")),
  };
  const script = (operationId: string, summary: string) => ({
    get: {
      operationId,
      summary,
      tags: ["dashboard"],
      security: PUBLIC,
      responses: page("The script.", "text/javascript"),
    },
  });
  return {
    "/dashboard/page.js": script("dashboardScript", "The session page's script"),
    "/dashboard/project.js": script("dashboardProjectScript", "The project page's script"),
    "/dashboard": {
      get: {
        operationId: "dashboardProjectPage",
        summary: "A project's live sessions (the page)",
        description:
          "Opened by the link POST /v1/dashboard/link answers: the page reads its token from the fragment (never sent to a server) and asks /dashboard/sessions with it.",
        tags: ["dashboard"],
        security: PUBLIC,
        responses: page("The page."),
      },
    },
    "/dashboard/sessions": {
      get: {
        operationId: "dashboardProjectSessions",
        summary: "The project's live sessions, to its project view token",
        tags: ["dashboard"],
        security: [{ viewToken: [] }],
        responses: {
          200: {
            description: "The project and its sessions.",
            content: jsonContent({ type: "object" }),
          },
          404: notShown,
        },
      },
    },
    "/v1/dashboard/link": {
      post: {
        operationId: "dashboardLink",
        summary: "Mint a read-only, expiring link to the project's live sessions",
        tags: ["dashboard"],
        requestBody: {
          required: false,
          content: jsonContent(json(DashboardLinkBodySchema, "input"), { expiresInSeconds: 3600 }),
        },
        responses: {
          200: {
            description: "The link.",
            content: jsonContent(success(DashboardLinkSchema), EXAMPLES.dashboardLink.answer),
          },
          ...failures(...KEYED_FAILURES),
          501: {
            description:
              "Shared mode (REDIS_URL): the project view lists one instance's sessions, so it is not offered.",
            content: jsonContent(ref("schemas", "FailureBody")),
          },
        },
      },
    },
    "/dashboard/{id}": {
      get: {
        operationId: "dashboardPage",
        summary: "A session's live dashboard (the page)",
        description:
          "The page holds nothing: it reads its token from the link's fragment (`#token=…`, never sent to a server) and asks the routes below with it.",
        tags: ["dashboard"],
        security: PUBLIC,
        parameters: [parameter("SessionId")],
        responses: page("The page."),
      },
    },
    "/dashboard/{id}/state": {
      get: {
        operationId: "dashboardState",
        summary: "What the session's dashboard shows: its page, operations and log",
        description: "The page's own data; its shape follows the page.",
        tags: ["dashboard"],
        security: [{ viewToken: [] }],
        parameters: [
          parameter("SessionId"),
          {
            name: "after",
            in: "query",
            required: false,
            description: "Log lines after this many (the page asks for what is new).",
            schema: { type: "integer", minimum: 0 },
          },
          {
            name: "seen",
            in: "query",
            required: false,
            description: "Operations the page has already shown in full.",
            schema: { type: "integer", minimum: 0 },
          },
        ],
        responses: {
          200: { description: "The state.", content: jsonContent({ type: "object" }) },
          404: notShown,
        },
      },
    },
    "/dashboard/{id}/picture": {
      get: {
        operationId: "dashboardPicture",
        summary: "A picture of the session's page, typed values painted over",
        tags: ["dashboard"],
        security: [{ viewToken: [] }],
        parameters: [parameter("SessionId")],
        responses: {
          200: {
            description: "A JPEG.",
            content: {
              "image/jpeg": { schema: { type: "string", contentMediaType: "image/jpeg" } },
            },
          },
          204: { description: "No page to show yet." },
          404: notShown,
        },
      },
    },
  };
}
