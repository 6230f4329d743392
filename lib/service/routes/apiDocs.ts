/**
 * `GET /docs`: the OpenAPI document to read and try, in Swagger UI served from the installed
 * package (@fastify/swagger-ui; no CDN, so it works offline). A reader pastes a key (and a model
 * key) under Authorize and sends a call to this same service. Public, as the document is: the
 * page holds nothing, and every call it sends meets the key check like any other.
 *
 * Swagger UI over Scalar: Scalar's current releases need Node 22, and it weighs about twice as
 * much in node_modules and in the service's start (docs/guide/service.md gives the figures).
 */
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { FastifyPluginAsync } from "fastify";
import { openApiDocument } from "../openapi.js";

/**
 * What the page may do: Swagger UI's own scripts and styles from here, calls to this service
 * only, nothing framed, no form sent elsewhere. Its React sets inline styles, hence
 * 'unsafe-inline' for styles alone.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The top bar's name, in place of the plugin's own logo. */
const LOGO = {
  type: "image/svg+xml",
  content: Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40"><text x="0" y="29" font-family="sans-serif" font-size="26" font-weight="bold" fill="#fff">Wayfarer</text></svg>',
  ),
  href: "/",
};

export function apiDocsRoutes(): FastifyPluginAsync {
  return async (app) => {
    // Each route the plugins add here is public (the server's key check reads this flag).
    app.addHook("onRoute", (route) => {
      route.config = { ...route.config, public: true };
    });
    app.addHook("onSend", async (_request, reply) => {
      reply.header("referrer-policy", "no-referrer").header("x-content-type-options", "nosniff");
    });
    await app.register(fastifySwagger, {
      mode: "static",
      specification: { document: openApiDocument() as never },
    });
    await app.register(fastifySwaggerUi, {
      routePrefix: "/docs",
      staticCSP: CSP,
      // No remote validator badge: nothing leaves for a third party.
      validatorUrl: false,
      theme: { title: "Wayfarer API reference" },
      logo: LOGO,
      uiConfig: {
        docExpansion: "list",
        deepLinking: true,
        displayOperationId: true,
        tryItOutEnabled: true,
        // A pasted key lives in the page only: gone when the tab is.
        persistAuthorization: false,
      },
    });
  };
}
