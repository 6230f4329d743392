/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of every route the service answers, generated
 * from the same zod schemas the routes validate with (lib/api/, answerSchemas.ts), so it cannot
 * drift from what is checked. test/service/apiDocs.test.ts validates it with a real OpenAPI
 * validator and fails when a route the service registers is missing here.
 */

import { z } from "zod";
import { ActResultSchema, AgentResultSchema, ObserveResultSchema } from "../api/operations.js";
import {
  ActBodySchema,
  AgentExecuteBodySchema,
  ExtractBodySchema,
  FailureBodySchema,
  NavigateBodySchema,
  ObserveBodySchema,
  ReplayDataSchema,
  StartBodySchema,
  StartDataSchema,
  StreamFrameSchema,
} from "../api/v1.js";
import {
  PlatformDebugSchema,
  PlatformReleaseBodySchema,
  PlatformReleasedSchema,
  PlatformSessionSchema,
} from "./answerSchemas.js";
import { contextPaths } from "./openapiContextPaths.js";
import { EXAMPLES, SSE_EXAMPLE } from "./openapiExamples.js";
import {
  FAILURE_RESPONSES,
  failures,
  HEADERS,
  header,
  json,
  jsonContent,
  KEYED,
  KEYED_FAILURES,
  KEYED_WITH_MODEL,
  OPERATION_FAILURES,
  PARAMETERS,
  parameter,
  plain,
  SECURITY_SCHEMES,
  SESSION_FAILURES,
  success,
  withRequestIds,
} from "./openapiParts.js";
import { servicePaths } from "./openapiServicePaths.js";
import { SERVICE_VERSION } from "./version.js";

const STREAMING = `With \`x-stream-response: true\` (or the body's \`streamResponse: true\`; the header wins) the answer is SSE frames instead, each \`{id, type, data}\`: \`system starting\`, \`system connected\`, a \`log\` frame for each log line as it happens (the session's \`verbose\`; an agent's events ride in log frames as \`event\`, a model call's usage as \`usage\`), then \`system finished\` with the result (\`cacheHit\`, \`cacheEntry\` where they apply) or \`system error\`. The framing follows the client: a generated SDK (it sends \`x-stainless-*\` headers) gets each frame named by an \`event:\` line (\`event: <status>\\ndata: <JSON>\\n\\n\`; a log frame's status is \`running\`), any other caller data-only frames (\`data: <JSON>\\n\\n\`). Bad input, an unknown session and a busy one are answered as JSON before any stream opens.`;

const DESCRIPTION = `ALPHA: browser sessions for v3 clients over the v1 protocol. Routes, bodies and answers may still change.

**Keys.** Every route but the public ones (this document, the front page, /docs, health, the dashboard's) needs a project's key in \`x-wf-api-key\` (or \`x-bb-api-key\`, which v3 clients send). The model provider's key travels in \`x-model-api-key\`, at /start for the session or with a call, and is never stored.

**Answers.** \`{success: true, data}\` or \`{success: false, message, error}\` with the status of the error's class (FailureBody). The platform routes answer the object itself, as the browser platform does. A failure that waiting will not fix says \`x-should-retry: false\`; a rate or budget that a wait lifts says \`retry-after\`.

**Streaming.** ${STREAMING}

**Server cache.** act, extract and observe go through the server cache unless \`browserbase-cache-bypass: true\` (or \`x-cache-bypass\`, or \`options.serverCache: false\`); the answer says \`browserbase-cache-status\` and \`x-cache-status\` (HIT or MISS).`;

/** A v1 session route: `{success: true, data}` in one JSON body. */
function sessionRoute(spec: {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  body?: { schema: Record<string, unknown>; example?: unknown; required: boolean };
  data: z.ZodType;
  example: unknown;
  security?: unknown[];
  failures: number[];
  /** An operation: its answer may be SSE frames, and it takes the stream header. */
  streams?: boolean;
  /** Goes through the server cache: takes the bypass headers, answers the status headers. */
  cached?: boolean;
}) {
  const headers = {
    "server-timing": header("ServerTiming"),
    ...(spec.cached
      ? {
          "browserbase-cache-status": header("CacheStatus"),
          "x-cache-status": header("XCacheStatus"),
        }
      : {}),
  };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    security: spec.security ?? KEYED,
    parameters: [
      ...(spec.operationId === "startSession" ? [] : [parameter("SessionId")]),
      ...(spec.streams ? [parameter("StreamResponse")] : []),
      ...(spec.cached ? [parameter("CacheBypass"), parameter("XCacheBypass")] : []),
    ],
    ...(spec.body
      ? {
          requestBody: {
            required: spec.body.required,
            content: jsonContent(spec.body.schema, spec.body.example),
          },
        }
      : {}),
    responses: {
      200: {
        description: spec.streams
          ? `One JSON body, or SSE frames when a stream is asked for. ${STREAMING}`
          : "One JSON body (even when a stream is asked for).",
        headers,
        content: {
          ...jsonContent(success(spec.data), spec.example),
          ...(spec.streams
            ? {
                "text/event-stream": {
                  schema: {
                    ...json(StreamFrameSchema, "output"),
                    description: `Each frame's JSON, after \`data: \`. On the wire:\n\n\`\`\`\n${SSE_EXAMPLE}\`\`\``,
                  },
                },
              }
            : {}),
        },
      },
      ...failures(...spec.failures),
    },
  };
}

/** An operation on a session's page: navigate, act, extract, observe, agentExecute. */
function operation(
  name: "navigate" | "act" | "extract" | "observe",
  summary: string,
  body: z.ZodType,
  result: z.ZodType,
) {
  return {
    post: sessionRoute({
      operationId: name,
      summary,
      tag: "operations",
      body: { schema: json(body, "input"), example: EXAMPLES[name].request, required: true },
      data: z.object({ result, actionId: z.string().describe("This call's id.") }),
      example: EXAMPLES[name].answer,
      security: name === "navigate" ? KEYED : KEYED_WITH_MODEL,
      failures: OPERATION_FAILURES,
      streams: true,
      cached: name !== "navigate",
    }),
  };
}

function build() {
  return {
    openapi: "3.1.0",
    info: {
      title: "Wayfarer service (v1 protocol)",
      version: SERVICE_VERSION,
      description: DESCRIPTION,
    },
    servers: [{ url: "/", description: "This service" }],
    security: KEYED,
    tags: [
      { name: "sessions", description: "Start, end and read back a session (v1)." },
      { name: "operations", description: "What a session does on its page (v1)." },
      {
        name: "platform",
        description:
          "The browser-platform routes a v3 client asks at BROWSERBASE_BASE_URL (its connectUrl, debug links, release).",
      },
      {
        name: "contexts",
        description:
          "Browser profiles kept between sessions (a login for scheduled jobs), per project, encrypted at rest.",
      },
      { name: "health", description: "For load balancers and process managers: no key." },
      {
        name: "service",
        description: "The front page, this document and its interactive reference.",
      },
      {
        name: "mcp",
        description:
          "The Model Context Protocol's Streamable HTTP transport: each MCP session owns a session (docs/guide/mcp.md).",
      },
      {
        name: "dashboard",
        description:
          "A session's live view, behind its read-only view token (the API key opens nothing here).",
      },
    ],
    components: {
      securitySchemes: SECURITY_SCHEMES,
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: FAILURE_RESPONSES,
      schemas: { FailureBody: json(FailureBodySchema, "output") },
    },
    paths: withRequestIds({
      "/v1/sessions/start": {
        post: sessionRoute({
          operationId: "startSession",
          summary: "Start a session (a browser of its own)",
          description:
            "The model key for the session's calls in `x-model-api-key`. `browserbaseSessionID` resumes a live session of the key's project instead. Always one JSON body.",
          tag: "sessions",
          body: {
            schema: json(StartBodySchema, "input"),
            example: EXAMPLES.start.request,
            required: false,
          },
          data: StartDataSchema,
          example: EXAMPLES.start.answer,
          security: KEYED_WITH_MODEL,
          failures: [...KEYED_FAILURES, 404, 500, 502],
        }),
      },
      "/v1/sessions/{id}/navigate": operation(
        "navigate",
        "Open a URL",
        NavigateBodySchema,
        z.null(),
      ),
      "/v1/sessions/{id}/act": operation("act", "Act on the page", ActBodySchema, ActResultSchema),
      "/v1/sessions/{id}/extract": operation(
        "extract",
        "Extract data from the page",
        ExtractBodySchema,
        z
          .unknown()
          .describe(
            "`{pageText}` without an instruction, `{extraction}` without a schema, else the data.",
          ),
      ),
      "/v1/sessions/{id}/observe": operation(
        "observe",
        "Find elements and the actions they take",
        ObserveBodySchema,
        ObserveResultSchema,
      ),
      "/v1/sessions/{id}/agentExecute": {
        post: sessionRoute({
          operationId: "agentExecute",
          summary: "Run the agent",
          tag: "operations",
          body: {
            schema: json(AgentExecuteBodySchema, "input"),
            example: EXAMPLES.agentExecute.request,
            required: true,
          },
          data: z.object({ result: AgentResultSchema, cacheEntry: z.unknown().optional() }),
          example: EXAMPLES.agentExecute.answer,
          security: KEYED_WITH_MODEL,
          failures: OPERATION_FAILURES,
          streams: true,
        }),
      },
      "/v1/sessions/{id}/end": {
        post: sessionRoute({
          operationId: "endSession",
          summary: "End the session and its browser",
          description:
            "Never refused: while an operation runs, it ends the session, and that operation's caller gets its answer (an error) at once. No body, or an empty one.",
          tag: "sessions",
          body: { schema: { type: "object", maxProperties: 0 }, required: false },
          data: z.object({}),
          example: EXAMPLES.end.answer,
          failures: SESSION_FAILURES,
        }),
      },
      "/v1/sessions/{id}/stop": {
        post: sessionRoute({
          operationId: "stopOperation",
          summary: "Stop the operation under way (ours)",
          description:
            "As a library caller's signal stops it: an agent run ends between steps and its caller gets the result so far. `stopped: false` when nothing ran.",
          tag: "sessions",
          data: z.object({ stopped: z.boolean() }),
          example: EXAMPLES.stop.answer,
          failures: SESSION_FAILURES,
        }),
      },
      "/v1/sessions/{id}/replay": {
        get: sessionRoute({
          operationId: "replay",
          summary: "Each call's method, timing and token usage",
          description:
            "For the client's metrics. A call's `parameters` stay empty: the service keeps nothing a caller sent.",
          tag: "sessions",
          data: ReplayDataSchema,
          example: EXAMPLES.replay.answer,
          failures: SESSION_FAILURES,
        }),
      },
      "/v1/sessions/{id}": {
        parameters: [parameter("SessionId")],
        get: plain(
          {
            operationId: "platformSession",
            summary: "The session, with its connectUrl",
            tag: "platform",
          },
          PlatformSessionSchema,
          EXAMPLES.platformSession.answer,
          { failures: SESSION_FAILURES },
        ),
        post: plain(
          {
            operationId: "releaseSession",
            summary: "End the session (REQUEST_RELEASE)",
            tag: "platform",
          },
          PlatformReleasedSchema,
          EXAMPLES.platformRelease.answer,
          {
            failures: SESSION_FAILURES,
            body: {
              required: true,
              content: jsonContent(
                json(PlatformReleaseBodySchema, "input"),
                EXAMPLES.platformRelease.request,
              ),
            },
          },
        ),
      },
      "/v1/sessions/{id}/debug": {
        parameters: [parameter("SessionId")],
        get: plain(
          {
            operationId: "platformDebug",
            summary: "The session's pages, a CDP URL and its dashboard",
            tag: "platform",
          },
          PlatformDebugSchema,
          EXAMPLES.platformDebug.answer,
          { failures: SESSION_FAILURES },
        ),
      },
      "/v1/sessions/{id}/cdp": {
        parameters: [parameter("SessionId")],
        get: {
          operationId: "cdpConnection",
          summary: "CDP to the session's browser (a WebSocket)",
          description:
            "Open the `cdpUrl`, `connectUrl` or `wsUrl` the service handed out with a CDP client (Playwright's connectOverCDP): a WebSocket upgrade, not a call to try here. Every command is judged by the service's CDP policy first.",
          tags: ["platform"],
          security: [{ cdpToken: [] }],
          responses: {
            101: { description: "Switching to the WebSocket: CDP messages both ways." },
            400: {
              description: "The request-target is refused (send the path in its plain form).",
            },
            401: {
              description:
                "The token is not this session's, has expired (10 minutes), or is used up (4 openings).",
            },
            429: { description: "The session has 4 CDP connections open already: close one." },
            503: { description: "The session's browser is not ready." },
          },
        },
      },
      ...contextPaths(),
      ...servicePaths(),
    }),
  };
}

let built: ReturnType<typeof build> | undefined;

/** Built once, on first use. */
export function openApiDocument(): ReturnType<typeof build> {
  built ??= build();
  return built;
}
