/**
 * A refusal by the service's egress rule names the setting that would change it: a loopback or
 * private address, whether a navigation or a model's baseURL, says `WAYFARER_ALLOW_HOSTS`; a
 * link-local (cloud metadata) address is refused without suggesting anything. The real service
 * on 127.0.0.1, which lets only 127.0.0.1 through.
 */
import { describe, expect, it } from "vitest";
import { KEYS, useService } from "../support/service.js";

const service = useService();

/** Runs `use` on a new session of its own, ended whatever happens. */
async function inSession(use: (id: string) => Promise<void>): Promise<void> {
  const started = await service.call("POST", "/v1/sessions/start", { body: {} });
  expect(started.body).toMatchObject({ success: true });
  const id: string = started.body.data.sessionId;
  try {
    await use(id);
  } finally {
    await service.call("POST", `/v1/sessions/${id}/end`);
  }
}

describe("refusals of the service's egress rule", () => {
  it("a navigation to a loopback or private address names WAYFARER_ALLOW_HOSTS; one to cloud metadata names nothing", async () => {
    await inSession(async (id) => {
      const navigate = (url: string) =>
        service.call("POST", `/v1/sessions/${id}/navigate`, { body: { url } });
      for (const [url, why] of [
        ["http://127.0.0.2:9/", "it is a loopback address"],
        ["http://[::1]:9/", "it is a loopback address"],
        ["http://10.1.2.3/", "it is a private address"],
      ] as const) {
        const refused = await navigate(url);
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({
          success: false,
          error: { name: "NavigationRefusedError" },
        });
        expect(refused.body.message).toBe(
          `Refused to navigate to ${url}: ${why}, refused unless WAYFARER_ALLOW_HOSTS lists it.`,
        );
      }
      const metadata = await navigate("http://169.254.169.254/latest/meta-data/");
      expect(metadata.status).toBe(400);
      expect(metadata.body.message).toContain("link-local or cloud metadata address");
      expect(metadata.body.message).not.toContain("WAYFARER_ALLOW_HOSTS");
    });
  });

  it("a model's baseURL on a loopback address names it too", async () => {
    await inSession(async (id) => {
      const model = { modelName: "openai/gpt-4.1-mini", baseURL: "http://127.0.0.2:1/v1" };
      const refused = await service.call("POST", `/v1/sessions/${id}/act`, {
        body: { input: "click it", options: { model } },
        headers: { "x-model-api-key": "sk-refusals-0123456789" },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain("options.model.baseURL");
      expect(refused.body.message).toContain(
        "it is a loopback address, refused unless WAYFARER_ALLOW_HOSTS lists it",
      );
    });
  });
});

describe("the service's own refusals", () => {
  it("an unknown session: 404 with code SESSION_NOT_FOUND, on every operation and on the platform routes", async () => {
    for (const [method, path, body] of [
      ["POST", "/v1/sessions/no-such-session/act", { input: "click" }],
      ["POST", "/v1/sessions/no-such-session/end", {}],
      ["GET", "/v1/sessions/no-such-session/replay", undefined],
      ["GET", "/v1/sessions/no-such-session", undefined],
    ] as const) {
      const answer = await service.call(method, path, { body });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error, `${method} ${path}`).toMatchObject({
        name: "SessionNotFound",
        code: "SESSION_NOT_FOUND",
      });
    }
  });
});

describe("another project's session", () => {
  it("is answered as an unknown one: the same 404 and code, whatever the spelling of its id", async () => {
    await inSession(async (id) => {
      const unknown = await service.call("POST", "/v1/sessions/no-such-session/act", {
        body: { input: "click" },
        key: KEYS.beta,
      });
      for (const spelt of [id, id.toUpperCase(), encodeURIComponent(id)]) {
        const theirs = await service.call("POST", `/v1/sessions/${spelt}/act`, {
          body: { input: "click" },
          key: KEYS.beta,
        });
        expect(theirs.status, spelt).toBe(404);
        expect(theirs.body.error, spelt).toEqual({
          ...unknown.body.error,
          message: expect.any(String),
        });
        expect(theirs.body.error.code).toBe("SESSION_NOT_FOUND");
      }
    });
  });
});
