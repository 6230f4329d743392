/**
 * `POST /v1/sessions/start`, `POST /v1/sessions/{id}/end`, `GET /v1/sessions/{id}/replay`: each
 * always one JSON body, even when the caller asks for a stream (the 3.7 client reads them so).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { EndBodySchema, StartBodySchema } from "../../api/v1.js";
import { parseInput } from "../../options.js";
import { answerJson } from "../answers.js";
import type { BrowserAccess } from "../browserAccess.js";
import type { ServiceConfig } from "../config.js";
import type { KeyRing } from "../keys.js";
import { dashboardLink, publicBase } from "../links.js";
import { callerModelKey } from "../modelBoundary.js";
import type { Session } from "../session.js";
import type { Sessions } from "../sessions.js";
import type { Cluster } from "../shared/cluster.js";
import { planBrowser } from "../startBrowser.js";
import { capStart } from "../startCaps.js";

const Id = z.object({ id: z.string().min(1) });

/** The platform fields a local browser honours; the rest are accepted and logged. */
const CreateParamsSchema = z.looseObject({
  timeout: z.number().int().min(1).max(21_600).optional(),
  keepAlive: z.boolean().optional(),
  userMetadata: z.record(z.string(), z.unknown()).optional(),
  browserSettings: z
    .looseObject({
      viewport: z
        .object({ width: z.number().int().min(100), height: z.number().int().min(100) })
        .optional(),
      /** A context of the project (POST /v1/contexts): its profile, saved back when `persist`. */
      context: z
        .looseObject({ id: z.string().min(1).max(200), persist: z.boolean().optional() })
        .optional(),
    })
    .optional(),
});

/** The create params a local browser does not honour, by path (`region`, `browserSettings.blockAds`). */
function ignoredFields(params: z.infer<typeof CreateParamsSchema>): string[] {
  const honoured = new Set(["timeout", "keepAlive", "userMetadata", "browserSettings"]);
  const top = Object.keys(params).filter((k) => !honoured.has(k));
  const settings = Object.keys(params.browserSettings ?? {})
    .filter((k) => k !== "viewport" && k !== "context")
    .map((k) => `browserSettings.${k}`);
  return [...top, ...settings];
}

export function sessionRoutes(deps: {
  sessions: Sessions;
  config: ServiceConfig;
  keys: KeyRing;
  cluster: Cluster | undefined;
  /** Mints the CDP URL `/start` answers. */
  access: BrowserAccess;
}): FastifyPluginAsync {
  const { sessions, config, keys, cluster, access } = deps;
  /**
   * Shared mode: a resumed session lives where its owner is; a new one goes to another
   * instance when this one is full. True when another instance answered.
   */
  const elsewhere = async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    if (!cluster) return false;
    const hijack = () => reply.hijack();
    const base = publicBase(request, config.publicUrl);
    const resumed = (request.body as { browserbaseSessionID?: unknown } | undefined)
      ?.browserbaseSessionID;
    if (typeof resumed === "string" && resumed) {
      return cluster.routeRequest(resumed, request.raw, reply.raw, hijack, base, request.body);
    }
    return sessions.isFull && cluster.place(request.raw, reply.raw, hijack, base, request.body);
  };
  return async (app) => {
    app.post("/v1/sessions/start", async (request, reply) => {
      if (await elsewhere(request, reply)) return reply;
      return answerJson(reply, async () => {
        const body = parseInput(StartBodySchema, request.body, "start body");
        const params = parseInput(
          CreateParamsSchema,
          body.browserbaseSessionCreateParams ?? {},
          "start body.browserbaseSessionCreateParams",
        );
        // Beside the protocol's fields, the dashboard link (optional on the wire).
        const answer = (session: Session) => {
          const base = publicBase(request, config.publicUrl);
          const sessionUrl = dashboardLink(base, session);
          // The session's CDP through our proxy, as the reference answers it (SDKs hand it to
          // Playwright's connectOverCDP); its token is the session's, never the key.
          // A session attached to the caller's own browser answers its address, as the reference.
          const cdpUrl =
            session.callerCdpUrl ?? `${base.replace(/^http/, "ws")}${access.mint(session.id)}`;
          return {
            sessionId: session.id,
            cdpUrl,
            available: true,
            sessionUrl,
            debugUrl: sessionUrl,
          };
        };
        if (body.browserbaseSessionID) {
          return answer(sessions.get(body.browserbaseSessionID, request.project));
        }
        const chosen = await planBrowser(body.browser, config.browserPolicy, config.rule);
        const capped = capStart(
          {
            client: body.wayfarer,
            viewport: params.browserSettings?.viewport,
            launchViewport: chosen.viewport,
            timeoutSeconds: params.timeout,
          },
          config.limits,
        );
        const session = await sessions.start({
          project: request.project,
          modelName: body.modelName,
          modelApiKey: callerModelKey(request.headers),
          verbose: body.verbose,
          systemPrompt: body.systemPrompt,
          selfHeal: body.selfHeal,
          domSettleTimeoutMs: body.domSettleTimeoutMs,
          viewport: capped.viewport,
          ...(params.browserSettings?.context
            ? {
                context: {
                  id: params.browserSettings.context.id,
                  persist: params.browserSettings.context.persist === true,
                },
              }
            : {}),
          lifetimeMs:
            capped.timeoutSeconds === undefined ? undefined : capped.timeoutSeconds * 1000,
          notes: [...capped.notes, ...chosen.browser.notes],
          browser: chosen.browser,
          keepAlive: params.keepAlive === true,
          userMetadata: params.userMetadata,
          ignored: ignoredFields(params),
          client: capped.client,
          rule: config.rule,
          secrets: [...keys.secrets, ...(cluster?.secrets ?? [])],
          streamKeepAliveMs: config.streamKeepAliveMs,
        });
        return answer(session);
      });
    });

    app.post("/v1/sessions/:id/end", (request, reply) =>
      answerJson(reply, async () => {
        const { id } = parseInput(Id, request.params, "path");
        parseInput(EndBodySchema, request.body, "body");
        await sessions.end(id, request.project);
        return {};
      }),
    );

    app.get("/v1/sessions/:id/replay", (request, reply) =>
      answerJson(reply, async () => {
        const { id } = parseInput(Id, request.params, "path");
        const session = sessions.get(id, request.project);
        return replayOf(session);
      }),
    );
  };
}

/**
 * `/replay`'s answer in the reference's shape (the generated SDKs' types require each field):
 * one page, the session's, with each call's timing and usage. A call's `parameters` stay empty:
 * the service keeps nothing a caller sent (an instruction may hold a secret); `result` says only
 * whether it succeeded.
 */
function replayOf(session: Session) {
  const now = Date.now();
  return {
    pages: [
      {
        url: session.activePage()?.url() ?? "",
        timestamp: session.createdAt,
        duration: now - session.createdAt,
        actions: session.operations.map((call) => ({
          method: call.method,
          parameters: {},
          result: { success: call.ok },
          timestamp: call.startedAt,
          endTime: call.startedAt + call.durationMs,
          tokenUsage: call.tokenUsage,
        })),
      },
    ],
  };
}
