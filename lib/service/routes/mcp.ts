/**
 * `POST|GET|DELETE /mcp`: the MCP Streamable HTTP transport (docs/guide/mcp.md). The key was
 * checked by the service's hook (x-wf-api-key or Authorization: Bearer) and, in shared mode, a
 * request naming another instance's session was forwarded to it there. Here: an `initialize`
 * without a session id starts a session (placed on another instance when this one is full);
 * any other request goes to its session's transport, or is answered 404 as the protocol says,
 * for an ended session and another project's alike.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { readableMessage } from "../../readableError.js";
import { statusOf } from "../answers.js";
import type { ServiceConfig } from "../config.js";
import { dashboardLink, publicBase } from "../links.js";
import type { McpSessions } from "../mcp/mcpSessions.js";
import { noteFailure, type ServiceMetrics } from "../metrics.js";
import type { Sessions } from "../sessions.js";
import type { Cluster } from "../shared/cluster.js";

type Loaded = { mcp: McpSessions; isInitialize: (body: unknown) => boolean; start: StartInit };
type StartInit = typeof import("../mcp/startInit.js").mcpStartInit;

export function mcpRoutes(deps: {
  sessions: Sessions;
  config: ServiceConfig;
  cluster: Cluster | undefined;
  metrics: ServiceMetrics;
  /** The service's secrets (keys): never in a session's log or a tool's answer. */
  secrets: () => string[];
}): FastifyPluginAsync {
  const { sessions, config, cluster } = deps;
  // The SDK loads with the first /mcp request, not with the service.
  let loading: Promise<Loaded> | undefined;
  const load = () => {
    loading ??= (async () => {
      const [m, s] = await Promise.all([
        import("../mcp/mcpSessions.js"),
        import("../mcp/startInit.js"),
      ]);
      return {
        mcp: new m.McpSessions(sessions, config.rule, (call) => deps.metrics.mcpToolCall(call)),
        isInitialize: m.isInitialize,
        start: s.mcpStartInit,
      };
    })();
    return loading;
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { mcp, isInitialize, start } = await load();
    const header = request.headers["mcp-session-id"];
    const id = typeof header === "string" && header !== "" ? header : undefined;
    if (id !== undefined) {
      const entry = mcp.find(id, request.project);
      if (!entry) return notFound(reply);
      // Any message of the client's (a list, a ping) is use: the idle clock starts again.
      entry.session.touch();
      return hand(request, reply, entry.transport);
    }
    if (request.method !== "POST" || !isInitialize(request.body)) {
      return rpcError(
        reply,
        400,
        -32000,
        "Bad Request: no mcp-session-id header: send initialize first, then its mcp-session-id with every request.",
        request.body,
      );
    }
    const base = publicBase(request, config.publicUrl);
    // Shared mode: a full instance hands the initialize to one with room, as /start.
    if (cluster && sessions.isFull) {
      const placed = await cluster.place(
        request.raw,
        reply.raw,
        () => reply.hijack(),
        base,
        request.body,
      );
      if (placed) return reply;
    }
    let entry: Awaited<ReturnType<McpSessions["start"]>>;
    try {
      entry = await mcp.start(
        await start(request.headers, request.project, config, deps.secrets()),
      );
    } catch (error) {
      noteFailure(request.raw, error);
      const after = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      if (typeof after === "number" && Number.isFinite(after)) {
        reply.header("retry-after", String(Math.max(0, Math.ceil(after))));
      }
      return rpcError(reply, statusOf(error), -32000, readableMessage(error), request.body);
    }
    // The dashboard's link goes to the client program, never into the conversation.
    reply.raw.setHeader("x-wf-session-url", dashboardLink(base, entry.session));
    await hand(request, reply, entry.transport);
    await mcp.abandon(entry);
    return reply;
  };

  return async (app) => {
    const options = { config: { bearer: true } };
    app.post("/mcp", options, handler);
    app.get("/mcp", options, handler);
    app.delete("/mcp", options, handler);
  };
}

/** The SDK answers on the raw response (SSE for a call that streams progress). */
async function hand(
  request: FastifyRequest,
  reply: FastifyReply,
  transport: Awaited<ReturnType<McpSessions["start"]>>["transport"],
): Promise<FastifyReply> {
  reply.hijack();
  try {
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (error) {
    noteFailure(request.raw, error, 500);
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "application/json" });
      reply.raw.end(rpcBody(-32603, readableMessage(error), request.body));
    } else reply.raw.end();
  }
  return reply;
}

/** Unknown, ended, or another project's: one answer, so an id tells nothing of another's. */
function notFound(reply: FastifyReply) {
  return rpcError(reply, 404, -32001, "Session not found", undefined);
}

function rpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  body: unknown,
) {
  return reply
    .code(status)
    .type("application/json")
    .send(rpcBody(code, message, body));
}

function rpcBody(code: number, message: string, body: unknown): string {
  const asked = (body as { id?: unknown } | undefined)?.id;
  const id = typeof asked === "string" || typeof asked === "number" ? asked : null;
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id });
}
