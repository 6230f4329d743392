/**
 * The answers of the routes that have no wire schema in lib/api/ (the platform routes, health,
 * the front page), as zod schemas: the OpenAPI document is generated from them, and
 * test/service/apiDocs.test.ts parses the real answers with them, so the two cannot drift apart.
 */
import { z } from "zod";

/** `GET /v1/sessions/{id}`: the platform's session, as a v3 client reads it. */
export const PlatformSessionSchema = z.looseObject({
  id: z.string().describe("The session's id."),
  status: z.literal("RUNNING").describe("A live session; an ended one answers 404."),
  projectId: z.string().describe("The project of the key that started it."),
  createdAt: z.iso.datetime().describe("When it started."),
  connectUrl: z
    .string()
    .describe(
      "A WebSocket that carries CDP to the session's browser, with a short-lived token for this session (never the API key). A client that came by it is the session's lifeline: without keepAlive the session ends 5 s after the last such client leaves. A session attached to the caller's own browser answers that browser's address.",
    ),
  keepAlive: z.boolean().describe("The session outlives its clients (until ended or idle)."),
  userMetadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("browserbaseSessionCreateParams.userMetadata, as given."),
});

/** `GET /v1/sessions/{id}/debug`. */
export const PlatformDebugSchema = z.looseObject({
  debuggerUrl: z
    .string()
    .describe("The session's live dashboard (its view token in the fragment)."),
  debuggerFullscreenUrl: z.string().describe("The same dashboard."),
  wsUrl: z
    .string()
    .describe("A CDP WebSocket for a look in beside API calls; it ends nothing when it leaves."),
  pages: z.array(
    z.looseObject({
      id: z.string().describe("The page's id (its main frame's; the operations' frameId)."),
      url: z.string(),
      title: z.string(),
    }),
  ),
});

/** `POST /v1/sessions/{id}`: the platform's way to end a session. */
export const PlatformReleaseBodySchema = z.looseObject({
  status: z.literal("REQUEST_RELEASE").describe("The only status a client may ask for."),
});

export const PlatformReleasedSchema = z.looseObject({
  id: z.string(),
  status: z.literal("COMPLETED"),
});

/** `GET /healthz` and `GET /health`: the process answers. */
export const HealthSchema = z.looseObject({ ok: z.literal(true) });

/** `GET /readyz`: whether this instance could start a session now, and why not when it could not. */
/** What this host gives each session's browser, decided at start-up (`/readyz`). */
export const ProtectionsSchema = z.strictObject({
  cdp: z
    .literal("pipe")
    .describe("A browser listens on no port: CDP reaches it only through the service."),
  browserUsers: z
    .enum(["per session", "root", "service's user"])
    .describe("Whom the browsers run as (WAYFARER_BROWSER_USERS)."),
  sandbox: z
    .union([
      z.strictObject({ on: z.literal(true), by: z.string() }),
      z.strictObject({
        on: z.literal(false),
        why: z.string(),
        allowedBy: z.literal("WAYFARER_ALLOW_UNSANDBOXED_BROWSERS").optional(),
      }),
    ])
    .describe(
      "Chromium's sandbox: how it works here, or why not and who allowed running without it.",
    ),
  memory: z
    .strictObject({ watchdogMb: z.number().int().positive().nullable() })
    .describe(
      "The memory one browser may hold before the watchdog ends its session; null: no limit.",
    ),
});

export const ReadySchema = z.looseObject({
  ready: z.boolean(),
  reason: z.string().optional().describe("Why not, as a word a program can branch on."),
  message: z.string().optional().describe("Why not, for a person."),
  sessions: z
    .looseObject({
      live: z.number().int().min(0).describe("Sessions live here."),
      capacity: z.number().int().min(0).describe("The most this instance holds."),
      room: z.number().int().min(0).describe("How many more it could start now."),
    })
    .optional(),
  protections: ProtectionsSchema.optional(),
});

/** `GET /` with `Accept: application/json`. */
export const FrontPageSchema = z.strictObject({
  name: z.literal("Wayfarer"),
  version: z.string().describe("The service's version (its package.json)."),
  docs: z.string().describe("The interactive API reference."),
  openapi: z.string().describe("This OpenAPI document."),
  health: z.strictObject({
    healthz: z.string().describe("The process answers."),
    readyz: z.string().describe("This instance takes sessions now."),
  }),
  dashboard: z
    .string()
    .describe(
      "A project's live sessions, opened by a link a key holder mints (POST /v1/dashboard/link).",
    ),
  guide: z.string().describe("The service's guide, in the repository."),
});
export type FrontPage = z.infer<typeof FrontPageSchema>;

/** `POST /v1/dashboard/link`: a read-only link to the project's live sessions. */
export const DashboardLinkBodySchema = z.strictObject({
  expiresInSeconds: z
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(3_600)
    .describe("How long the link opens the view (at most a day)."),
});

export const DashboardLinkSchema = z.looseObject({
  url: z
    .string()
    .describe("The project view, its read-only token in the fragment (never the key)."),
  expiresAt: z.iso.datetime(),
});

/** `POST /v1/contexts`, `GET /v1/contexts/{id}`: a context (a browser profile kept between sessions). */
export const ContextSchema = z.looseObject({
  id: z.string().describe("The context's id: give it as `browserSettings.context.id` on /start."),
  projectId: z.string().describe("The project of the key that created it: only it may use it."),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime().describe("When a session last saved it (`persist: true`)."),
  size: z
    .number()
    .int()
    .describe(
      "The profile's size once its caches are left out, bytes; 0 until a session saved it.",
    ),
});

/** `DELETE /v1/contexts/{id}`. */
export const ContextDeletedSchema = z.looseObject({
  id: z.string(),
  deleted: z.literal(true),
});
