/**
 * `GET /`: what this service is and where to go next (its docs, its OpenAPI document, health),
 * as a small page, or as JSON for a caller whose `Accept` prefers it. Public: it holds nothing
 * of any project (no key, no session).
 */
import type { FastifyPluginAsync } from "fastify";
import type { FrontPage } from "../answerSchemas.js";
import { publicBase } from "../links.js";
import { SERVICE_VERSION } from "../version.js";

/** The page runs no script and loads nothing: its one style sheet is inline. */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  vary: "accept",
};

/**
 * The weight `accept` gives `type` (e.g. "application/json"): the q of the most specific range
 * that matches it (`type/sub` over `type/*` over `*\/*`), 0 when none does, 1 with no header.
 */
export function acceptWeight(accept: string | undefined, type: string): number {
  if (!accept) return 1;
  const [main] = type.split("/");
  let best = { specificity: -1, q: 0 };
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.trim().toLowerCase().split(";");
    const specificity =
      range === type ? 2 : range === `${main}/*` ? 1 : range === "*/*" ? 0 : undefined;
    if (specificity === undefined || specificity < best.specificity) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    best = { specificity, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 };
  }
  return best.q;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(front: FrontPage): string {
  const link = (href: string, text: string) =>
    `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Wayfarer ${escapeHtml(front.version)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 42rem; margin: 3rem auto; padding: 0 1rem; color: #1d232b; }
h1 { margin-bottom: 0; } .version { color: #5b6673; margin-top: 0; }
li { margin: .4rem 0; } code { background: #eef1f4; padding: 0 .25rem; border-radius: 3px; }
</style>
</head>
<body>
<h1>Wayfarer</h1>
<p class="version">version ${escapeHtml(front.version)} · browser sessions over the v1 protocol</p>
<ul>
<li>${link(front.docs, "API reference")}: every route, and a call to try with your key</li>
<li>${link(front.openapi, "OpenAPI document")} (OpenAPI 3.1, public)</li>
<li>${link(front.health.healthz, "/healthz")} and ${link(front.health.readyz, "/readyz")}: is it up, can it start a session now</li>
<li>Live dashboards: a session's is the <code>sessionUrl</code> that <code>POST /v1/sessions/start</code> answers; a project's ${link(front.dashboard, "live sessions")} open with a link its key holder mints (<code>POST /v1/dashboard/link</code>)</li>
<li>The guide: <code>${escapeHtml(front.guide)}</code> in Wayfarer's repository</li>
</ul>
<p>The session routes (<code>/v1/sessions/…</code>) need a project's key in <code>x-wf-api-key</code>, and the model provider's key travels in <code>x-model-api-key</code>; this page, the OpenAPI document, the API reference and the health routes need none.</p>
</body>
</html>
`;
}

export function frontRoutes(deps: { publicUrl: string | undefined }): FastifyPluginAsync {
  return async (app) => {
    app.get("/", { config: { public: true } }, async (request, reply) => {
      const base = publicBase(request, deps.publicUrl);
      const front: FrontPage = {
        name: "Wayfarer",
        version: SERVICE_VERSION,
        docs: `${base}/docs`,
        openapi: `${base}/v1/openapi.json`,
        health: { healthz: `${base}/healthz`, readyz: `${base}/readyz` },
        dashboard: `${base}/dashboard`,
        guide: "docs/guide/service.md",
      };
      const accept = request.headers.accept;
      const json = acceptWeight(accept, "application/json");
      // A tie (no header, `*/*`) is a person's browser or curl: the page.
      if (json > 0 && json > acceptWeight(accept, "text/html")) {
        return reply.header("vary", "accept").send(front);
      }
      return reply.headers(PAGE_HEADERS).type("text/html; charset=utf-8").send(page(front));
    });
  };
}
