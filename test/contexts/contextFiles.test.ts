/**
 * What a context keeps, on real files: a real Chromium's profile packed (caches left out) and
 * unpacked into a new profile that the next browser reads (cookie, localStorage, IndexedDB);
 * hostile archives refused before anything is written; the sealed file opened only under its own
 * project and id, unchanged, with no cookie value in clear; a save cut short keeps the previous
 * version.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  readContextFile,
  readContextHeader,
  writeContextFile,
} from "../../lib/contexts/contextFile.js";
import {
  packProfile,
  readProfileArchive,
  unpackProfile,
} from "../../lib/contexts/profileArchive.js";
import { ContextError } from "../../lib/errors.js";
import { Client } from "../../lib/index.js";
import { failure } from "../support/failure.js";

const SECRET = Buffer.alloc(32, 7);
const COOKIE = "sid-3f9c0a7be21d44c1";
let server: Server;
let origin: string;
const folders: string[] = [];
const folder = async () => {
  const made = await mkdtemp(join(tmpdir(), "wayfarer-ctx-test-"));
  folders.push(made);
  return made;
};

beforeAll(async () => {
  // A page that logs in once: a lasting cookie, a localStorage entry and an IndexedDB record.
  server = createServer((request, response) => {
    if (request.url === "/login") {
      response.setHeader("set-cookie", `sid=${COOKIE}; Max-Age=86400; Path=/; HttpOnly`);
    }
    response.setHeader("content-type", "text/html");
    response.end(`<title>Site</title><script>
      if (location.pathname === "/login") {
        localStorage.setItem("who", "ada");
        const open = indexedDB.open("kept", 1);
        open.onupgradeneeded = () => open.result.createObjectStore("s");
        open.onsuccess = () => {
          const tx = open.result.transaction("s", "readwrite");
          tx.objectStore("s").put("record-42", "k");
          tx.oncomplete = () => { document.title = "stored"; };
        };
      }
    </script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.close();
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

async function browse(profile: string, path: string, read: string): Promise<unknown> {
  const client = new Client({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    localBrowserLaunchOptions: {
      userDataDir: profile,
      args: ["--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  });
  await client.init();
  try {
    const page = client.context.activePage()!;
    await page.goto(`${origin}${path}`);
    return await page.evaluate(read);
  } finally {
    await client.close();
  }
}

describe("a profile packed and unpacked", () => {
  it("carries a real browser's cookie, localStorage and IndexedDB to the next browser, without its caches", async () => {
    const first = await folder();
    await browse(
      first,
      "/login",
      `new Promise((r) => { const t = () => document.title === "stored" ? r(1) : setTimeout(t, 20); t(); })`,
    );
    const archive = await packProfile(first);
    const paths = readProfileArchive(archive).map((e) => e.path);
    expect(paths.some((p) => /(^|\/)Cookies$/.test(p))).toBe(true);
    expect(paths.filter((p) => /(^|\/)(Cache|Code Cache|GPUCache|Crashpad)(\/|$)/.test(p))).toEqual(
      [],
    );

    const second = join(await folder(), "profile");
    await unpackProfile(archive, second);
    const seen = await browse(
      second,
      "/",
      `new Promise((resolve) => {
        const open = indexedDB.open("kept", 1);
        open.onsuccess = () => {
          const get = open.result.transaction("s").objectStore("s").get("k");
          get.onsuccess = () => resolve([localStorage.getItem("who"), get.result]);
        };
      })`,
    );
    expect(seen).toEqual(["ada", "record-42"]);
    // The cookie went with it: the server sees it on the next request.
    const cookieSeen = await browse(second, "/", "fetch('/').then(() => document.cookie)");
    expect(cookieSeen).toBe(""); // HttpOnly: not readable by the page…
    const third = join(await folder(), "profile");
    await unpackProfile(archive, third);
    const heard: string[] = [];
    server.prependListener("request", (request) => heard.push(request.headers.cookie ?? ""));
    await browse(third, "/", "1");
    expect(heard.some((c) => c.includes(`sid=${COOKIE}`))).toBe(true); // …and sent by the browser.
  });
});

/** An archive of the given entries, written as packProfile writes them. */
function archiveOf(entries: [string, string][]): Buffer {
  const parts = [Buffer.from("wayfarer-profile-1\n")];
  for (const [path, text] of entries) {
    const name = Buffer.from(path);
    const data = Buffer.from(text);
    const head = Buffer.alloc(6);
    head.writeUInt16BE(name.length, 0);
    head.writeUInt32BE(data.length, 2);
    parts.push(head, name, data);
  }
  return Buffer.concat(parts);
}

describe("a hostile archive", () => {
  it.each([
    ["a path that climbs out", "../escape"],
    ["a path that climbs out deeper", "Default/../../escape"],
    ["an absolute path", "/tmp/escape"],
    ["a backslash", "..\\escape"],
    ["an empty segment", "Default//Cookies"],
    ["a NUL", "Default/Coo\0kies"],
    ["a dot", "./Cookies"],
  ])("is refused before anything is written: %s", async (_, path) => {
    const dir = join(await folder(), "profile");
    const error = await failure(
      unpackProfile(
        archiveOf([
          ["Default/ok", "x"],
          [path, "x"],
        ]),
        dir,
      ),
    );
    expect(error).toBeInstanceOf(ContextError);
    expect(error.message).toMatch(/path/);
    await expect(readdir(dir)).rejects.toThrow(); // not even the folder
  });

  it("is refused when it names a file twice, is cut short, is not ours, or passes its limits", async () => {
    const dir = join(await folder(), "profile");
    const twice = archiveOf([
      ["a", "1"],
      ["a", "2"],
    ]);
    expect((await failure(unpackProfile(twice, dir))).message).toMatch(/named twice/);
    const whole = archiveOf([["a", "12345"]]);
    expect(
      (await failure(unpackProfile(whole.subarray(0, whole.length - 2), dir))).message,
    ).toMatch(/cut short/);
    expect((await failure(unpackProfile(Buffer.from("PK\x03\x04"), dir))).message).toMatch(
      /not a profile/,
    );
    const many = archiveOf([
      ["a", "1"],
      ["b", "2"],
      ["c", "3"],
    ]);
    expect((await failure(unpackProfile(many, dir, { files: 2, bytes: 100 }))).message).toMatch(
      /limits/,
    );
    expect((await failure(unpackProfile(many, dir, { files: 10, bytes: 2 }))).message).toMatch(
      /limits/,
    );
  });

  it("is never unpacked into a folder that holds something (a link planted there included)", async () => {
    const dir = await folder();
    await symlink("/etc/passwd", join(dir, "Cookies"));
    const error = await failure(unpackProfile(archiveOf([["Cookies", "x"]]), dir));
    expect(error.message).toMatch(/empty folder/);
    expect((await readFile("/etc/passwd", "utf8")).length).toBeGreaterThan(1);
  });

  it("packs no link, and leaves out what a profile rebuilds", async () => {
    const dir = await folder();
    await writeFile(join(dir, "Preferences"), "{}");
    await symlink("/etc/passwd", join(dir, "Linked"));
    await writeFile(join(dir, "SingletonLock"), "host-1");
    await writeFile(join(dir, "half.tmp"), "x");
    expect(readProfileArchive(await packProfile(dir)).map((e) => e.path)).toEqual(["Preferences"]);
  });
});

describe("a context's file", () => {
  const header = (id: string, project = "alpha") => ({
    v: 1 as const,
    id,
    project,
    createdAt: 1,
    updatedAt: 2,
    bytes: 0,
  });

  it("opens only under its own project and id, unchanged, and holds no cookie value in clear", async () => {
    const file = join(await folder(), "ctx");
    const profile = archiveOf([["Default/Cookies", `sid=${COOKIE}`]]);
    await writeContextFile(file, header("c1"), profile, SECRET);
    const stored = await readFile(file);
    expect(stored.includes(Buffer.from(COOKIE))).toBe(false);
    expect((await readContextFile(file, { project: "alpha", id: "c1" }, SECRET)).profile).toEqual(
      profile,
    );
    expect(await readContextHeader(file)).toEqual(header("c1"));

    // Another project, another id, another secret: nothing opens.
    await expect(readContextFile(file, { project: "beta", id: "c1" }, SECRET)).rejects.toThrow(
      ContextError,
    );
    await expect(readContextFile(file, { project: "alpha", id: "c2" }, SECRET)).rejects.toThrow(
      ContextError,
    );
    await expect(
      readContextFile(file, { project: "alpha", id: "c1" }, Buffer.alloc(32, 8)),
    ).rejects.toThrow(/does not open/);
    // The header rewritten to name another project: its key is not the one it was sealed under.
    const moved = join(await folder(), "ctx");
    const text = stored.toString("latin1").replace('"project":"alpha"', '"project":"betaa"');
    await writeFile(moved, Buffer.from(text, "latin1"));
    await expect(readContextFile(moved, { project: "betaa", id: "c1" }, SECRET)).rejects.toThrow(
      /does not open/,
    );
    // One byte of the sealed body changed.
    const flipped = Buffer.from(stored);
    flipped[flipped.length - 1]! ^= 1;
    await writeFile(moved, flipped);
    await expect(readContextFile(moved, { project: "alpha", id: "c1" }, SECRET)).rejects.toThrow(
      /does not open/,
    );
  });

  it("keeps the previous version when a save is killed halfway", async () => {
    const dir = await folder();
    const file = join(dir, "ctx");
    const before = archiveOf([["Default/Preferences", "v1"]]);
    await writeContextFile(file, header("c1"), before, SECRET);
    // A process that saves a large version and is killed while it writes.
    const script = join(dir, "save.mts");
    await writeFile(
      script,
      `import { writeContextFile } from ${JSON.stringify(join(import.meta.dirname, "../../lib/contexts/contextFile.ts"))};
       import { randomBytes } from "node:crypto";
       process.stdout.write("go\\n");
       const big = Buffer.concat([Buffer.from("wayfarer-profile-1\\n"), randomBytes(40 * 1024 * 1024)]);
       for (;;) await writeContextFile(${JSON.stringify(file)}, ${JSON.stringify({ ...header("c1"), updatedAt: 3 })}, big, Buffer.alloc(32, 7));`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const started = await new Promise((resolve) => {
      child.stdout!.once("data", () => resolve(true));
      child.once("exit", () => resolve(false));
    });
    expect(started).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    // Whatever moment it died at, the file is one whole version, never a part of one.
    const { header: kept } = await readContextFile(file, { project: "alpha", id: "c1" }, SECRET);
    expect([2, 3]).toContain(kept.updatedAt);
  });
});
