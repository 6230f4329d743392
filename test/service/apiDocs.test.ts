/**
 * The OpenAPI document and its interactive reference on the real service: the document is
 * public, valid by a real OpenAPI validator (Redocly's recommended-strict rules, which also check
 * each example against its schema), lists every route the service registers (so a new route
 * without an entry fails here) and no route it does not answer; the routes' real answers parse by
 * the schemas the document was generated from; and /docs, in a real Chromium, loads under its
 * CSP, lists every operation, and sends a call with a pasted key (and model key) that works.
 */
import { readFileSync } from "node:fs";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { type Browser, chromium, type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { FailureBodySchema, ReplayDataSchema, StartDataSchema } from "../../lib/api/v1.js";
import {
  HealthSchema,
  PlatformDebugSchema,
  PlatformReleasedSchema,
  PlatformSessionSchema,
  ReadySchema,
} from "../../lib/service/answerSchemas.js";
import { startOwnBrowser } from "../support/browserProcess.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const service = useService();

const METHODS = ["get", "post", "put", "delete", "patch"] as const;

/** Fastify's `/v1/sessions/:id` as OpenAPI writes it. */
const asTemplate = (url: string) => url.replace(/:(\w+)/g, "{$1}");

/** Served by the docs page itself, described by its /docs entry. */
const isDocsAsset = (url: string) => url.startsWith("/docs/");

/** Answered by the CDP proxy on the server's upgrade, not by a Fastify route. */
const WEBSOCKET_PATHS = new Set(["/v1/sessions/{id}/cdp"]);

/** The document as JSON; its shape is what the validator checks. */
// biome-ignore lint/suspicious/noExplicitAny: walked freely by path, as the tests read it
type Doc = any;

async function fetchDocument(): Promise<Doc> {
  const answer = await service.call("GET", "/v1/openapi.json", { key: null });
  expect(answer.status).toBe(200);
  return answer.body;
}

describe("the OpenAPI document", () => {
  it("says the service's own version (package.json's)", async () => {
    const document = await service.call("GET", "/v1/openapi.json", { key: null });
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(document.body.info.version).toBe(version);
    expect(document.body.openapi).toBe("3.1.0");
  });

  it("is public, and valid by a real OpenAPI 3.1 validator, examples included", async () => {
    const doc = await fetchDocument();
    expect(doc.openapi).toBe("3.1.0");
    const config = await createConfig({
      extends: ["recommended-strict"],
      // The project is private and names no licence.
      rules: { "info-license": "off" },
    });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: "openapi.json",
      config,
    });
    const found = problems
      // A WebSocket upgrade answers 101, never a 2xx.
      .filter(
        (p) =>
          !(
            p.ruleId === "operation-2xx-response" &&
            p.location[0]?.pointer === "#/paths/~1v1~1sessions~1{id}~1cdp/get/responses"
          ),
      )
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(found).toEqual([]);
    // The validator does check examples: a wrong one is caught.
    const broken = structuredClone(doc);
    broken.paths["/v1/sessions/{id}/act"].post.requestBody.content["application/json"].example = {
      input: 7,
    };
    const caught = await lintFromString({
      source: JSON.stringify(broken),
      absoluteRef: "openapi.json",
      config,
    });
    expect(caught.map((p) => p.ruleId)).toContain("no-invalid-media-type-examples");
  });

  it("lists every route the service registers, and only those", async () => {
    const doc = await fetchDocument();
    const registered = service.service.routes.filter(
      (r) => r.method !== "HEAD" && !isDocsAsset(r.url),
    );
    expect(registered.length).toBeGreaterThan(25);
    for (const route of registered) {
      const entry = doc.paths[asTemplate(route.url)]?.[route.method.toLowerCase()];
      expect(entry, `${route.method} ${route.url} has no entry in the document`).toBeDefined();
      // A keyed route says so; a public one asks for no API key (the dashboard's data asks
      // for its view token instead).
      const asksKey = (entry.security ?? doc.security).some(
        (s: object) => "wfApiKey" in s || "bbApiKey" in s,
      );
      expect(asksKey, `${route.method} ${route.url}: security`).toBe(!route.public);
      expect(entry.operationId, `${route.method} ${route.url}`).toBeTruthy();
      expect(entry.responses["200"] ?? entry.responses["101"], route.url).toBeDefined();
    }
    const answered = new Set(registered.map((r) => `${r.method} ${asTemplate(r.url)}`));
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      if (WEBSOCKET_PATHS.has(path)) continue;
      for (const method of METHODS) {
        if (!item[method]) continue;
        expect(answered, `${method} ${path} is documented but not answered`).toContain(
          `${method.toUpperCase()} ${path}`,
        );
      }
    }
  });

  it("describes every header, each failure status and the stream's framing", async () => {
    const doc = await fetchDocument();
    const schemes = Object.values<{ name?: string }>(doc.components.securitySchemes).map(
      (s) => s.name,
    );
    expect(schemes).toEqual(
      expect.arrayContaining([
        "x-wf-api-key",
        "x-bb-api-key",
        "x-model-api-key",
        "x-wf-view-token",
      ]),
    );
    const params = Object.values<{ name: string }>(doc.components.parameters).map((p) => p.name);
    expect(params).toEqual(
      expect.arrayContaining([
        "x-stream-response",
        "browserbase-cache-bypass",
        "x-cache-bypass",
        "x-request-id",
      ]),
    );
    const act = doc.paths["/v1/sessions/{id}/act"].post;
    expect(Object.keys(act.responses["200"].headers)).toEqual(
      expect.arrayContaining([
        "server-timing",
        "browserbase-cache-status",
        "x-cache-status",
        "x-request-id",
      ]),
    );
    expect(act.responses["200"].description).toContain("event: <status>");
    expect(act.responses["200"].content["text/event-stream"].schema.description).toContain(
      'data: {"id":"a1","type":"system","data":{"status":"starting"}}',
    );
    const limited = doc.components.responses.F429;
    expect(Object.keys(limited.headers)).toEqual(
      expect.arrayContaining(["retry-after", "x-should-retry"]),
    );
    // Each status names the error classes that answer it, from the registry.
    expect(doc.components.responses.F404.description).toContain("`SessionNotFound`");
    expect(doc.components.responses.F409.description).toContain("`SessionBusyError`");
    expect(doc.components.responses.F400.description).toContain("`ServiceValidationError`");
    for (const op of ["navigate", "act", "extract", "observe", "agentExecute"]) {
      const post = doc.paths[`/v1/sessions/{id}/${op}`].post;
      expect(post.requestBody.content["application/json"].example, op).toBeDefined();
      expect(post.responses["200"].content["application/json"].example, op).toBeDefined();
      expect(Object.keys(post.responses), op).toEqual(
        expect.arrayContaining(["400", "401", "404", "409", "429", "502", "504"]),
      );
    }
  });

  it("describes the answers the routes really give", async () => {
    const doc = await fetchDocument();
    const health = await service.call("GET", "/healthz", { key: null });
    HealthSchema.parse(health.body);
    ReadySchema.parse((await service.call("GET", "/readyz", { key: null })).body);
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    expect(started.status).toBe(200);
    expect(started.headers.get("x-request-id")).toBeTruthy();
    const start = StartDataSchema.parse(started.body.data);
    const id = start.sessionId;
    const navigated = await service.call("POST", `/v1/sessions/${id}/navigate`, {
      body: { url: server.url("outline/shop.html") },
    });
    expect(navigated.body).toEqual({
      success: true,
      data: { result: null, actionId: expect.any(String) },
    });
    expect(navigated.headers.get("server-timing")).toMatch(/^op;dur=/);
    ReplayDataSchema.parse((await service.call("GET", `/v1/sessions/${id}/replay`)).body.data);
    PlatformSessionSchema.parse((await service.call("GET", `/v1/sessions/${id}`)).body);
    const debug = PlatformDebugSchema.parse(
      (await service.call("GET", `/v1/sessions/${id}/debug`)).body,
    );
    expect(debug.pages.length).toBeGreaterThan(0);
    // The documented release example ends the session.
    const release = doc.paths["/v1/sessions/{id}"].post.requestBody.content["application/json"];
    const released = await service.call("POST", `/v1/sessions/${id}`, { body: release.example });
    expect(PlatformReleasedSchema.parse(released.body)).toEqual({ id, status: "COMPLETED" });
    const gone = await service.call("GET", `/v1/sessions/${id}/replay`);
    expect(gone.status).toBe(404);
    FailureBodySchema.parse(gone.body);
    expect(doc.components.responses.F404.description).toContain(gone.body.error.name);
  });
});

/** A browser of the test's own, stopped when `look` is done. */
async function withBrowser(look: (browser: Browser) => Promise<void>): Promise<void> {
  const own = await startOwnBrowser();
  const browser = await chromium.connectOverCDP(own.wsEndpoint);
  try {
    await look(browser);
  } finally {
    await browser.close();
    await own.stop();
  }
}

/** Pastes `value` into the Authorize dialog's form of `scheme`. */
async function authorize(page: Page, values: Record<string, string>): Promise<void> {
  await page.locator("button.authorize").first().click();
  const dialog = page.locator(".dialog-ux .modal-ux");
  for (const [scheme, value] of Object.entries(values)) {
    const form = dialog.locator(".auth-container").filter({ hasText: scheme });
    await form.locator("input").fill(value);
    await form.locator("button.authorize").click();
  }
  await dialog.locator("button.btn-done").first().click();
}

describe("/docs", () => {
  it("shows every operation in a real browser, and a pasted key's call works", async () => {
    const doc = await fetchDocument();
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    const opened: string[] = [];
    try {
      await withBrowser(async (browser) => {
        const page = await browser.contexts()[0]!.newPage();
        const refused: string[] = [];
        page.on("console", (m) => {
          if (m.type() === "error") refused.push(m.text());
        });
        const answer = await page.goto(`${service.url}/docs`);
        expect(answer?.status()).toBe(200);
        expect(answer?.headers()["content-security-policy"]).toContain("connect-src 'self'");
        await page.locator(".opblock").first().waitFor({ timeout: 60_000 });

        // Every operation of the document is on the page.
        const shown = await page
          .locator(".opblock")
          .evaluateAll((blocks) =>
            blocks.map(
              (b) =>
                `${b.querySelector(".opblock-summary-method")?.textContent?.toLowerCase()} ${b
                  .querySelector(".opblock-summary-path")
                  ?.getAttribute("data-path")}`,
            ),
          );
        const documented = Object.entries<Record<string, unknown>>(doc.paths).flatMap(
          ([path, item]) => METHODS.filter((m) => item[m]).map((m) => `${m} ${path}`),
        );
        expect(new Set(shown)).toEqual(new Set(documented));

        await authorize(page, {
          wfApiKey: KEYS.alpha,
          modelApiKey: "sk-docs-model-key-0123456789",
        });

        // GET /v1/sessions/{id}, tried with the pasted key.
        const platform = page.locator("#operations-platform-platformSession");
        await platform.locator(".opblock-summary").click();
        await platform.locator('tr[data-param-name="id"] input').fill(id);
        const sent = page.waitForRequest((r) => r.url() === `${service.url}/v1/sessions/${id}`);
        await platform.locator("button.execute").click();
        expect((await sent).headers()["x-wf-api-key"]).toBe(KEYS.alpha);
        const status = platform
          .locator(".live-responses-table tr.response .response-col_status")
          .first();
        await expect.poll(() => status.textContent(), { timeout: 30_000 }).toContain("200");
        expect(
          await platform.locator(".live-responses-table .microlight").first().textContent(),
        ).toContain(`"id": "${id}"`);

        // POST /start with its example body: the model key rides along.
        const start = page.locator("#operations-sessions-startSession");
        await start.locator(".opblock-summary").click();
        const startSent = page.waitForRequest(
          (r) => r.url() === `${service.url}/v1/sessions/start`,
        );
        const startAnswer = page.waitForResponse(
          (r) => r.url() === `${service.url}/v1/sessions/start`,
        );
        await start.locator("button.execute").click();
        const headers = (await startSent).headers();
        expect(headers["x-wf-api-key"]).toBe(KEYS.alpha);
        expect(headers["x-model-api-key"]).toBe("sk-docs-model-key-0123456789");
        const body = await (await startAnswer).json();
        expect(body.success).toBe(true);
        opened.push(body.data.sessionId);
        expect(service.service.sessions.find(body.data.sessionId)).toBeDefined();
        expect(refused.filter((t) => /Content Security Policy/i.test(t))).toEqual([]);
      });
    } finally {
      for (const other of [id, ...opened]) {
        await service.call("POST", `/v1/sessions/${other}/end`);
      }
    }
  });
});
