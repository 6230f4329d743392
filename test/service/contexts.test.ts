/**
 * Contexts on a real service (issue 45): a project creates one, a session logs in to a loopback
 * site with it and saves it (a session cookie among what it keeps), and the next session is
 * logged in without typing anything. The file at rest holds no cookie value in clear; another
 * project can neither read, delete nor start with it; two sessions never hold it at once.
 */

import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS, useService } from "../support/service.js";

const service = useService();
const SESSION_ID = "s-7c1e9b0d4a2f48e6";
let site: Server;
let origin: string;
/** The cookie header of each request the site heard, by path. */
const heard: { path: string; cookie: string }[] = [];

beforeAll(async () => {
  site = createServer((request, response) => {
    heard.push({ path: request.url ?? "", cookie: request.headers.cookie ?? "" });
    response.setHeader("content-type", "text/html");
    if (request.url === "/login") {
      // A session cookie (no expiry): Chromium keeps none on disk by itself.
      response.setHeader("set-cookie", [
        `sid=${SESSION_ID}; Path=/; HttpOnly`,
        "theme=dark; Max-Age=86400; Path=/",
      ]);
      response.end(
        "<title>Logged in</title><p>Logged in</p><script>localStorage.setItem('who', 'ada')</script>",
      );
      return;
    }
    const logged = (request.headers.cookie ?? "").includes(`sid=${SESSION_ID}`);
    response.end(`<title>Home</title><p>${logged ? "Welcome back, ada" : "Please log in"}</p>`);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => site.close());

async function start(context?: { id: string; persist?: boolean }, key = KEYS.alpha) {
  return service.call("POST", "/v1/sessions/start", {
    key,
    body: context ? { browserbaseSessionCreateParams: { browserSettings: { context } } } : {},
  });
}

async function goto(sessionId: string, path: string) {
  const went = await service.call("POST", `/v1/sessions/${sessionId}/navigate`, {
    body: { url: `${origin}${path}` },
  });
  expect(went.status, went.text).toBe(200);
}

describe("contexts", () => {
  it("keep a login from one session to the next, sealed at rest, for their own project only", async () => {
    const created = await service.call("POST", "/v1/contexts", { body: {} });
    expect(created.status, created.text).toBe(200);
    const { id } = created.body;
    expect(created.body).toMatchObject({ projectId: "alpha", size: 0 });

    // Another project: as if it did not exist.
    for (const [method, path] of [
      ["GET", `/v1/contexts/${id}`],
      ["DELETE", `/v1/contexts/${id}`],
    ] as const) {
      const other = await service.call(method, path, { key: KEYS.beta });
      expect(other.status).toBe(404);
      expect(other.body.error.code).toBe("CONTEXT_NOT_FOUND");
    }
    const stolen = await start({ id, persist: true }, KEYS.beta);
    expect(stolen.status).toBe(404);

    // Log in once, with persist: the profile is saved as the session ends.
    const first = await start({ id, persist: true });
    expect(first.status, first.text).toBe(200);
    const firstId = first.body.data.sessionId;
    await goto(firstId, "/login");
    // Held: a second session cannot take it meanwhile.
    const twice = await start({ id, persist: true });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("CONTEXT_IN_USE");
    expect((await service.call("DELETE", `/v1/contexts/${id}`)).status).toBe(409);
    expect((await service.call("POST", `/v1/sessions/${firstId}/end`, { body: {} })).status).toBe(
      200,
    );

    const saved = await service.call("GET", `/v1/contexts/${id}`);
    expect(saved.body.size).toBeGreaterThan(0);
    // Saved by the session's end, a second or more after it was made.
    expect(Date.parse(saved.body.updatedAt)).toBeGreaterThan(Date.parse(created.body.createdAt));

    // At rest: no cookie value, no localStorage value, in clear.
    const files = await contextFiles(service);
    expect(files.length).toBe(1);
    const bytes = await readFile(files[0]!);
    expect(bytes.includes(Buffer.from(SESSION_ID))).toBe(false);
    expect(bytes.includes(Buffer.from("theme=dark"))).toBe(false);

    // The next session, without persist, is logged in without typing anything.
    const second = await start({ id });
    expect(second.status, second.text).toBe(200);
    const secondId = second.body.data.sessionId;
    heard.length = 0;
    await goto(secondId, "/");
    expect(heard.find((h) => h.path === "/")?.cookie).toContain(`sid=${SESSION_ID}`);
    const text = await service.call("POST", `/v1/sessions/${secondId}/extract`, { body: {} });
    expect(text.body.data.result.pageText).toContain("Welcome back, ada");
    await service.call("POST", `/v1/sessions/${secondId}/end`, { body: {} });

    // A session without the context: a fresh profile, logged out.
    const fresh = await start();
    heard.length = 0;
    await goto(fresh.body.data.sessionId, "/");
    expect(heard.find((h) => h.path === "/")?.cookie ?? "").not.toContain("sid=");
    await service.call("POST", `/v1/sessions/${fresh.body.data.sessionId}/end`, { body: {} });

    expect((await service.call("DELETE", `/v1/contexts/${id}`)).status).toBe(200);
    expect((await service.call("GET", `/v1/contexts/${id}`)).status).toBe(404);
    expect((await start({ id })).status).toBe(404);
  });

  it("is reached by no other spelling, no key, and no launch option a caller names", async () => {
    const { id } = (await service.call("POST", "/v1/contexts", { body: {} })).body;
    expect((await service.call("GET", `/v1/contexts/${id}`, { key: null })).status).toBe(401);
    for (const path of [
      `/v1/contexts/%2e%2e/contexts/${id}`,
      `/v1//contexts/${id}`,
      `/v1/contexts/.%2F${id}`,
      `/v1/contexts;x=1/${id}`,
    ]) {
      const other = await service.call("GET", path, { key: KEYS.beta });
      expect([400, 404], path).toContain(other.status);
      expect(other.text, path).not.toContain('"projectId"');
    }
    // A context is the service's to place: a caller's launch option naming a host file is refused.
    const planted = join(service.dataDir, "planted.ctx");
    const refused = await service.call("POST", "/v1/sessions/start", {
      body: {
        browser: { type: "local", launchOptions: { context: { path: planted, persist: true } } },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("context");
    await expect(readFile(planted)).rejects.toThrow();
    expect((await service.call("DELETE", `/v1/contexts/${id}`)).status).toBe(200);
  });

  it("refuses ids that are not a context's, whatever their spelling", async () => {
    for (const id of [
      "../../keys",
      "..%2F..%2Fkeys",
      "x".repeat(300),
      "00000000-0000-4000-8000-000000000000",
    ]) {
      const got = await service.call("GET", `/v1/contexts/${encodeURIComponent(id)}`);
      expect([400, 404, 414]).toContain(got.status);
    }
    const started = await start({ id: "../../keys" });
    expect([400, 404]).toContain(started.status);
  });
});

async function contextFiles(running: typeof service): Promise<string[]> {
  const root = join(running.dataDir, "contexts");
  const out: string[] = [];
  for (const project of await readdir(root, { withFileTypes: true })) {
    if (!project.isDirectory()) continue;
    for (const name of await readdir(join(root, project.name)))
      if (name.endsWith(".ctx")) out.push(join(root, project.name, name));
  }
  return out;
}
