/**
 * Another project's session id, on every session route: the same answer as an id that never
 * existed (no oracle of which ids are live), and the session untouched by it.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const service = useService({ maxSessions: 2 });

/** Every route that names a session, with a body it would take. */
const ROUTES = (url: string) =>
  [
    ["GET", "", undefined],
    ["POST", "", { status: "REQUEST_RELEASE" }],
    ["GET", "/debug", undefined],
    ["GET", "/replay", undefined],
    ["POST", "/navigate", { url }],
    ["POST", "/act", { input: "click the link" }],
    ["POST", "/extract", { instruction: "the title" }],
    ["POST", "/observe", {}],
    ["POST", "/agentExecute", { agentConfig: {}, executeOptions: { instruction: "do it" } }],
    ["POST", "/stop", {}],
    ["POST", "/end", {}],
  ] as const;

describe("another project's session id", () => {
  it("answers on every session route as an id that never existed, and leaves the session as it was", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    expect(started.status).toBe(200);
    const id = started.body.data.sessionId as string;
    const page = server.url("basic.html");
    expect(
      (await service.call("POST", `/v1/sessions/${id}/navigate`, { body: { url: page } })).status,
    ).toBe(200);
    const never = randomUUID();
    for (const [method, path, body] of ROUTES(server.url("agent/counter.html"))) {
      const other = await service.call(method, `/v1/sessions/${id}${path}`, {
        key: KEYS.beta,
        ...(body ? { body } : {}),
      });
      const none = await service.call(method, `/v1/sessions/${never}${path}`, {
        key: KEYS.beta,
        ...(body ? { body } : {}),
      });
      const route = `${method} ${path || "/"}`;
      expect(other.status, route).toBe(404);
      expect(JSON.stringify(other.body).replaceAll(id, "ID"), route).toBe(
        JSON.stringify(none.body).replaceAll(never, "ID"),
      );
    }
    // Still alpha's, still live, still on its page.
    const own = await service.call("GET", `/v1/sessions/${id}`);
    expect(own.status).toBe(200);
    expect(service.service.sessions.find(id)?.activePage()?.url()).toBe(page);
    expect((await service.call("POST", `/v1/sessions/${id}/end`)).status).toBe(200);
  });
});
