/**
 * The library's `context` option (LOCAL): a run logs in once to a loopback site and saves its
 * profile into a file sealed with WAYFARER_CONTEXT_KEY; the next run starts logged in (its
 * session cookie and localStorage back) without typing anything. Without the key, with another
 * key, or beside `userDataDir`, it refuses, saying why.
 */

import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../lib/index.js";
import { failure } from "../support/failure.js";

const KEY = "a".repeat(64);
const SID = "sid-local-5d2b8e0f9a7c";
let site: Server;
let origin: string;
let folder: string;
const heard: string[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "wayfarer-local-ctx-"));
  site = createServer((request, response) => {
    heard.push(request.headers.cookie ?? "");
    response.setHeader("content-type", "text/html");
    if (request.url === "/login") response.setHeader("set-cookie", `sid=${SID}; Path=/`);
    response.end(
      request.url === "/login"
        ? "<title>in</title><script>localStorage.setItem('who', 'ada')</script>"
        : "<title>home</title>",
    );
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site.close();
  await rm(folder, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.WAYFARER_CONTEXT_KEY;
});

const clientWith = (context: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  new Client({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    localBrowserLaunchOptions: {
      context,
      args: ["--disable-background-networking", "--disable-component-update", "--disable-sync"],
      ...extra,
    } as never,
  });

describe("the library's context option", () => {
  it("keeps a login from one run to the next in a sealed file", async () => {
    process.env.WAYFARER_CONTEXT_KEY = KEY;
    const path = join(folder, "login.ctx");
    const first = clientWith({ path, persist: true });
    await first.init();
    await first.context.activePage()!.goto(`${origin}/login`);
    await first.close();
    expect((await stat(path)).size).toBeGreaterThan(0);
    expect((await readFile(path)).includes(Buffer.from(SID))).toBe(false);

    const second = clientWith({ path });
    await second.init();
    heard.length = 0;
    const page = second.context.activePage()!;
    await page.goto(`${origin}/`);
    expect(heard.at(-1)).toContain(`sid=${SID}`);
    expect(await page.evaluate("localStorage.getItem('who')")).toBe("ada");
    await second.close();
  });

  it("refuses without the key, with another key, and beside userDataDir, saying why", async () => {
    const path = join(folder, "login.ctx");
    const missing = await failure(clientWith({ path }).init());
    expect(missing.message).toContain("WAYFARER_CONTEXT_KEY");

    process.env.WAYFARER_CONTEXT_KEY = "b".repeat(64);
    const wrong = await failure(clientWith({ path }).init());
    expect(wrong.message).toMatch(/does not open/);

    process.env.WAYFARER_CONTEXT_KEY = "not hex";
    expect((await failure(clientWith({ path }).init())).message).toMatch(/64 hex/);

    process.env.WAYFARER_CONTEXT_KEY = KEY;
    const both = await failure(clientWith({ path }, { userDataDir: folder }).init());
    expect(both.message).toMatch(/not with userDataDir/);
  });
});
