/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of the service, generated from the same wire
 * schemas the routes validate with (lib/api/), so it cannot drift from what is checked.
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

const json = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });

const success = (data: z.ZodType) => json(z.object({ success: z.literal(true), data }), "output");

/** A POST of a session operation: its body, its JSON answer, its SSE frames, its failures. */
function operation(summary: string, body: z.ZodType, data: z.ZodType, streams = true) {
  return {
    post: {
      summary,
      security: [{ apiKey: [] }],
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      requestBody: {
        required: true,
        content: { "application/json": { schema: json(body, "input") } },
      },
      responses: {
        200: {
          description: streams
            ? "One JSON body, or with `x-stream-response: true` (or the body's `streamResponse`; the header wins) SSE frames: `event: <status>\\ndata: <JSON>\\n\\n` for a client that sends `x-stainless-*` headers (a log frame's status is `running`), data-only `data: <JSON>\\n\\n` for any other."
            : "One JSON body.",
          content: {
            "application/json": { schema: success(data) },
            ...(streams
              ? { "text/event-stream": { schema: json(StreamFrameSchema, "output") } }
              : {}),
          },
        },
        ...FAILURES,
      },
    },
  };
}

const failure = (description: string) => ({
  description,
  content: { "application/json": { schema: json(FailureBodySchema, "output") } },
});
const FAILURES = {
  400: failure("Bad input: the message names the field."),
  401: failure("No valid API key."),
  404: failure("No such session in the key's project."),
  409: failure("Another operation of the session is running."),
  413: failure("The body is over the limit."),
  503: failure("The service is full or shutting down."),
};

let built: object | undefined;

export function openApiDocument(): object {
  built ??= {
    openapi: "3.1.0",
    info: {
      title: "Wayfarer service (v1 protocol)",
      version: "3.1.0",
      description:
        "ALPHA: browser sessions for v3 clients. Routes, bodies and answers may still change.",
    },
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-wf-api-key" },
      },
    },
    paths: {
      "/v1/sessions/start": {
        post: {
          summary: "Start a session (a browser of its own)",
          security: [{ apiKey: [] }],
          requestBody: {
            content: { "application/json": { schema: json(StartBodySchema, "input") } },
          },
          responses: {
            200: {
              description: "The session.",
              content: { "application/json": { schema: success(StartDataSchema) } },
            },
            ...FAILURES,
          },
        },
      },
      "/v1/sessions/{id}/navigate": operation("Open a URL", NavigateBodySchema, z.null()),
      "/v1/sessions/{id}/act": operation("act", ActBodySchema, ActResultSchema),
      "/v1/sessions/{id}/extract": operation("extract", ExtractBodySchema, z.unknown()),
      "/v1/sessions/{id}/observe": operation("observe", ObserveBodySchema, ObserveResultSchema),
      "/v1/sessions/{id}/agentExecute": operation(
        "Run the agent",
        AgentExecuteBodySchema,
        z.object({ result: AgentResultSchema, cacheEntry: z.unknown().optional() }),
      ),
      "/v1/sessions/{id}/end": operation(
        "End the session",
        z.strictObject({}),
        z.object({}),
        false,
      ),
      "/v1/sessions/{id}/stop": operation(
        "Stop the operation under way (ours): an agent run ends between steps and answers its result",
        z.object({}),
        z.object({ stopped: z.boolean() }),
        false,
      ),
      "/v1/sessions/{id}/replay": {
        get: {
          summary: "Each call's method and token usage",
          security: [{ apiKey: [] }],
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            200: {
              description: "The calls so far.",
              content: { "application/json": { schema: success(ReplayDataSchema) } },
            },
            ...FAILURES,
          },
        },
      },
    },
  };
  return built;
}
