/**
 * `GET /` on the real service: a small page naming the service, its version and where to go,
 * or the same as JSON when `Accept` prefers it; no key needed, and nothing of any project in it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FrontPageSchema } from "../../lib/service/answerSchemas.js";
import { acceptWeight } from "../../lib/service/routes/front.js";
import { KEYS, useService } from "../support/service.js";

const service = useService();
const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

describe("the front page", () => {
  it("is a page naming the service, its version and its links, with no key", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    try {
      const answer = await service.call("GET", "/", { key: null });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(answer.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.text).toContain("<h1>Wayfarer</h1>");
      expect(answer.text).toContain(`version ${version}`);
      for (const path of ["/docs", "/v1/openapi.json", "/healthz", "/readyz", "/dashboard"]) {
        expect(answer.text).toContain(`href="${service.url}${path}"`);
      }
      expect(answer.text).toContain("docs/guide/service.md");
      // It runs nothing and tells nothing of a project.
      expect(answer.text).not.toContain("<script");
      expect(answer.text).not.toContain(id);
      expect(answer.text).not.toContain(KEYS.alpha);
      // A key makes no difference.
      expect((await service.call("GET", "/")).text).toBe(answer.text);
      // What it says needs no key needs none; what it says needs one does.
      expect(answer.text).toContain(
        "this page, the OpenAPI document, the API reference and the health routes need none",
      );
      for (const path of ["/v1/openapi.json", "/docs", "/healthz", "/readyz"]) {
        expect((await service.call("GET", path, { key: null })).status, path).toBe(200);
      }
      expect((await service.call("GET", `/v1/sessions/${id}`, { key: null })).status).toBe(401);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("answers JSON when Accept prefers it, and the page otherwise", async () => {
    const json = await service.call("GET", "/", {
      key: null,
      headers: { accept: "application/json" },
    });
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toContain("application/json");
    expect(json.headers.get("vary")).toContain("accept");
    expect(FrontPageSchema.parse(json.body)).toEqual({
      name: "Wayfarer",
      version,
      docs: `${service.url}/docs`,
      openapi: `${service.url}/v1/openapi.json`,
      health: { healthz: `${service.url}/healthz`, readyz: `${service.url}/readyz` },
      dashboard: `${service.url}/dashboard`,
      guide: "docs/guide/service.md",
    });
    // Each link it names answers, without a key.
    for (const link of [json.body.docs, json.body.openapi, json.body.health.healthz]) {
      expect((await fetch(link)).status, link).toBe(200);
    }
    const kinds: [string, "json" | "html"][] = [
      ["application/json, text/html;q=0.5", "json"],
      ["text/html;q=0.2, application/*", "json"],
      ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "html"],
      ["*/*", "html"],
      ["application/json;q=0, */*", "html"],
      ["text/plain", "html"],
    ];
    for (const [accept, kind] of kinds) {
      const answer = await service.call("GET", "/", { key: null, headers: { accept } });
      expect(answer.headers.get("content-type"), accept).toContain(
        kind === "json" ? "application/json" : "text/html",
      );
    }
  });

  it("weighs an Accept header by its most specific range", () => {
    expect(acceptWeight(undefined, "application/json")).toBe(1);
    expect(acceptWeight("text/html", "application/json")).toBe(0);
    expect(acceptWeight("*/*;q=0.3, application/*;q=0.6", "application/json")).toBe(0.6);
    expect(acceptWeight("application/*;q=0.6, application/json;q=0.1", "application/json")).toBe(
      0.1,
    );
    expect(acceptWeight("application/json;q=nonsense", "application/json")).toBe(0);
    expect(acceptWeight("APPLICATION/JSON; Q=0.7", "application/json")).toBe(0.7);
  });
});
