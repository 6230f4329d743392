/**
 * The front door: every route but a short public list needs a key, decided on the route the
 * router matched. Each route is walked with odd spellings of its path (encoded letters, the
 * absolute form, dot segments, doubled slashes, encoded slashes, matrix parameters…) and no key:
 * none reaches a handler (no session starts, none is touched or ended); each spelling either
 * normalises to the same route under the same check or is refused with 400.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { canonicalTarget } from "../../lib/service/requestTarget.js";
import { KEYS, useService } from "../support/service.js";

const service = useService({ maxSessions: 3 });

/** One raw HTTP/1.1 request with the request-target exactly as given; the status and body. */
function rawRequest(
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      text += d;
      // An upgraded connection stays open: its head is the answer.
      if (/^HTTP\/1\.1 101 /.test(text) && text.includes("\r\n\r\n")) {
        socket.destroy();
        resolve({ status: 101, body: "" });
      }
    });
    socket.on("error", reject);
    socket.on("end", () => {
      const status = Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    const body = method === "GET" || method === "HEAD" ? "" : "{}";
    const lines = [
      `${method} ${target} HTTP/1.1`,
      "host: 127.0.0.1",
      ...(headers.connection ? [] : ["connection: close"]),
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ...(body ? ["content-type: application/json", `content-length: ${body.length}`] : []),
    ];
    socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
  });
}

/** The front page, the OpenAPI document, and its reference page with Swagger UI's own assets. */
const FRONT_AND_DOCS = [
  "/",
  "/v1/openapi.json",
  "/docs",
  "/docs/",
  "/docs/static/index.html",
  "/docs/static/swagger-initializer.js",
  "/docs/static/*",
  "/docs/json",
  "/docs/yaml",
];

/** Odd spellings of `path` (which starts `/v1/`): [spelling, what it must become]. */
function spellings(path: string): [string, "same route" | "refused" | "no route"][] {
  if (!path.startsWith("/v1/")) return spellingsOutsideV1(path);
  const rest = path.slice("/v1".length);
  const letters = (s: string) =>
    [...s].map((c) => (/[a-z]/.test(c) ? `%${c.charCodeAt(0).toString(16)}` : c)).join("");
  const { port } = new URL(service.url);
  return [
    [`/%761${rest}`, "same route"],
    [`/%76%31${rest}`, "same route"],
    [letters(path), "same route"],
    [`http://127.0.0.1:${port}${path}`, "same route"],
    [`HTTP://evil.example${path}`, "same route"],
    [`${path}?x=1`, "same route"],
    [`/v1/.${rest}`, "refused"],
    [`/v1/x/..${rest}`, "refused"],
    [`/v1/%2e${rest}`, "refused"],
    [`/v1/x/%2E%2E${rest}`, "refused"],
    [`/${path}`, "refused"],
    [`/v1/${rest}`, "refused"],
    [`/v1;a=b${rest}`, "refused"],
    [`${path};jsessionid=1`, "refused"],
    [`/v1%2F${rest.slice(1)}`, "refused"],
    [`/v1%5c${rest.slice(1)}`, "refused"],
    [`/v1\\${rest.slice(1)}`, "refused"],
    [`/v1/%zz${rest}`, "refused"],
    [`/v1/%00${rest}`, "refused"],
    [`v1${rest}`, "refused"],
    [`*`, "refused"],
    [`${path}/`, "no route"],
    [`/V1${rest}`, "no route"],
    [`/%2576${path.slice(2)}`, "no route"],
  ];
}

/** The same kinds of spelling for a keyed route outside /v1 (`/mcp`). */
function spellingsOutsideV1(path: string): [string, "same route" | "refused" | "no route"][] {
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16)}`;
  const name = path.slice(1);
  const { port } = new URL(service.url);
  return [
    [`/${hex(name[0]!)}${name.slice(1)}`, "same route"],
    [`/${[...name].map(hex).join("")}`, "same route"],
    [`http://127.0.0.1:${port}${path}`, "same route"],
    [`HTTP://evil.example${path}`, "same route"],
    [`${path}?x=1`, "same route"],
    [`/.${path}`, "refused"],
    [`/x/..${path}`, "refused"],
    [`/%2e${path}`, "refused"],
    [`/x/%2E%2E${path}`, "refused"],
    [`/${path}`, "refused"],
    [`/x/${path}`, "refused"],
    [`${path};a=b`, "refused"],
    [`/x%2F${name}`, "refused"],
    [`/x%5c${name}`, "refused"],
    [`/x\\${name}`, "refused"],
    [`/%zz${path}`, "refused"],
    [`/%00${path}`, "refused"],
    [name, "refused"],
    [`${path}/`, "no route"],
    [path.toUpperCase(), "no route"],
    [`/%25${hex(name[0]!).slice(1)}${name.slice(1)}`, "no route"],
  ];
}

describe("the front door", () => {
  it("brings a target to one spelling or refuses it", () => {
    expect(canonicalTarget("/%76%31/sessions/a?b=%76")).toEqual({
      path: "/v1/sessions/a",
      query: "?b=%76",
    });
    expect(canonicalTarget("https://h:1/v1/x")).toEqual({ path: "/v1/x", query: "" });
    expect(canonicalTarget("/a/%c3%a9")).toEqual({ path: "/a/%C3%A9", query: "" });
    for (const bad of ["/a/../b", "/a//b", "/a;b", "/a%2fb", "/a/%2E", "*", "/a\\b", "/a%0a"]) {
      expect(canonicalTarget(bad), bad).toHaveProperty("refused");
    }
  });

  it("lists its public routes, and only health, metrics, the dashboard and the docs are among them", () => {
    const open = service.service.routes.filter((r) => r.public).map((r) => r.url);
    expect(new Set(open)).toEqual(
      new Set([
        ...FRONT_AND_DOCS,
        "/healthz",
        "/health",
        "/readyz",
        // Behind WAYFARER_METRICS_TOKEN when set, never an API key.
        "/metrics",
        "/dashboard/page.js",
        "/dashboard/:id",
        "/dashboard/:id/state",
        "/dashboard/:id/picture",
        // The project's list, behind a project view token (POST /v1/dashboard/link).
        "/dashboard",
        "/dashboard/project.js",
        "/dashboard/sessions",
      ]),
    );
  });

  it("lets no spelling of any route reach a handler without a key", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    expect(started.status).toBe(200);
    const id = started.body.data.sessionId as string;
    const session = service.service.sessions.get(id, "alpha");
    try {
      const keyed = service.service.routes.filter((r) => !r.public && r.method !== "HEAD");
      expect(keyed.length).toBeGreaterThanOrEqual(10);
      let tried = 0;
      for (const route of keyed) {
        const path = route.url.replace(":id", id);
        for (const [spelling, becomes] of spellings(path)) {
          const answer = await rawRequest(route.method, spelling);
          const where = `${route.method} ${spelling}`;
          expect(answer.status, where).toBe(becomes === "refused" ? 400 : 401);
          expect(answer.body, where).not.toContain('"sessionId"');
          tried++;
        }
      }
      expect(tried).toBeGreaterThan(200);
      // Nothing started, nothing run, nothing ended.
      expect(service.service.sessions.size).toBe(1);
      expect(session.operations).toEqual([]);
      expect(session.isEnded).toBe(false);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("routes a spelling that normalises as its plain form, under the same key check", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    try {
      const { port } = new URL(service.url);
      for (const spelling of [
        `/%761/sessions/${id}/replay`,
        `http://127.0.0.1:${port}/v1/sessions/${id}/replay`,
      ]) {
        const mine = await rawRequest("GET", spelling, { "x-wf-api-key": KEYS.alpha });
        expect(mine.status, spelling).toBe(200);
        expect(JSON.parse(mine.body)).toMatchObject({
          success: true,
          data: { pages: [{ actions: [] }] },
        });
        // Another project's key sees no such session, whatever the spelling.
        const theirs = await rawRequest("GET", spelling, { "x-wf-api-key": KEYS.beta });
        expect(theirs.status, spelling).toBe(404);
      }
      // The public routes stay public in every normal spelling.
      expect((await rawRequest("GET", "/%68ealthz")).status).toBe(200);
      expect((await rawRequest("GET", "/./healthz")).status).toBe(400);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("refuses an oddly spelled CDP upgrade, and takes a normalised one with its token", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    try {
      const connectUrl = (await service.call("GET", `/v1/sessions/${id}`)).body
        .connectUrl as string;
      const { pathname, search } = new URL(connectUrl);
      const upgrade = (target: string) =>
        rawRequest("GET", target, {
          upgrade: "websocket",
          connection: "Upgrade",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          "sec-websocket-version": "13",
        });
      expect((await upgrade(`/v1/./${pathname.slice(4)}${search}`)).status).toBe(400);
      expect((await upgrade(`/%761/${pathname.slice(4)}?token=nope`)).status).toBe(401);
      expect((await upgrade(`/%761/${pathname.slice(4)}${search}`)).status).toBe(101);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});
