/**
 * The host's files, written, through the real CDP proxy: a download behaviour that names a
 * folder of the host (one of the test's, the server cache's) writes nothing there, whichever
 * domain sets it (Browser, Page) and for whichever context; the file lands in the session's own
 * `<browserFolder>/downloads`, which goes with the session.
 */
import { mkdtempSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CdpClient, evaluate, openPage } from "../../support/cdpClient.js";
import {
  browserFolderOf,
  type CdpSession,
  cdpSession,
  secretValue,
} from "../../support/sandbox.js";
import { useService } from "../../support/service.js";
import { useStaticServer } from "../../support/staticServer.js";

const dataDir = mkdtempSync(join(tmpdir(), "wayfarer-sandbox-data-"));
let outside = "";
afterAll(async () => {
  for (const dir of [dataDir, outside]) if (dir) await rm(dir, { recursive: true, force: true });
});
const service = useService({ dataDir });
const server = useStaticServer();
const cacheDir = join(dataDir, "cache");

beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), "wayfarer-outside-"));
  await mkdir(cacheDir, { recursive: true });
});

/** Every file under `dir` (recursively) whose content is `content`. */
async function filesHolding(dir: string, content: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path, "utf8").catch(() => "")) === content) found.push(path);
  }
  return found;
}

/** A page of the session (in `context` if given) that saves a Blob of `content` as `name`. */
async function blobDownload(cdp: CdpClient, sessionId: string, name: string, content: string) {
  await evaluate(
    cdp,
    sessionId,
    `(() => {
      const a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([${JSON.stringify(content)}], { type: "text/plain" }));
      a.download = ${JSON.stringify(name)};
      document.body.append(a);
      a.click();
      return true;
    })()`,
  );
}

/**
 * Downloads `content` after `setBehaviour`, and says where it was written: in `folder` (the
 * host's), in the session's downloads folder, within a few seconds.
 */
async function downloadAfter(
  a: CdpSession,
  folder: string,
  setBehaviour: (sessionId: string, context: string | undefined) => Promise<unknown>,
  context?: string,
) {
  const content = secretValue("download");
  const { sessionId } = await openPage(a.cdp, server.url("basic.html"), context);
  await setBehaviour(sessionId, context);
  await blobDownload(a.cdp, sessionId, "entry.json", content);
  const downloads = (() => {
    try {
      return join(browserFolderOf(a.session), "downloads");
    } catch {
      return undefined;
    }
  })();
  let inFolder: string[] = [];
  let inSession: string[] = [];
  const until = Date.now() + 5_000;
  while (Date.now() < until && !inFolder.length && !inSession.length) {
    inFolder = await filesHolding(folder, content);
    inSession = downloads ? await filesHolding(downloads, content) : [];
    await new Promise((r) => setTimeout(r, 100));
  }
  return { inFolder, inSession, downloads };
}

describe("the host's files, written, through CDP", () => {
  it("Browser.setDownloadBehavior to a host folder writes nothing there; the file lands in the session's folder", async () => {
    const a = await cdpSession(service);
    try {
      const setBrowser =
        (folder: string) => (_sessionId: string, browserContextId: string | undefined) =>
          a.cdp.answer("Browser.setDownloadBehavior", {
            behavior: "allow",
            downloadPath: folder,
            eventsEnabled: true,
            ...(browserContextId ? { browserContextId } : {}),
          });
      const { browserContextId } = await a.cdp.send("Target.createBrowserContext", {});
      const downloads = () => join(browserFolderOf(a.session), "downloads");
      const cases = [
        ["a folder of the host, the session's own context", () => outside, outside, undefined],
        ["the server cache's folder", () => cacheDir, cacheDir, undefined],
        [
          "a folder of the host, a context of the client's",
          () => outside,
          outside,
          browserContextId,
        ],
        // Spelled from the session's own folder, climbing out of it.
        [
          "a climb out of the session's folder",
          () => `${downloads()}/${relative(downloads(), outside)}`,
          outside,
          undefined,
        ],
      ] as const;
      for (const [what, asked, folder, context] of cases) {
        const landed = await downloadAfter(a, folder, setBrowser(asked()), context);
        expect(landed.inFolder, what).toEqual([]);
        expect(landed.downloads, "the session's browserFolder").toEqual(expect.any(String));
        expect(landed.inSession, what).toHaveLength(1);
      }
      expect(await readdir(outside)).toEqual([]);
      expect(await readdir(cacheDir)).toEqual([]);
    } finally {
      await a.end();
    }
  });

  it("Page.setDownloadBehavior to a host folder writes nothing there; the file lands in the session's folder", async () => {
    const a = await cdpSession(service);
    try {
      const landed = await downloadAfter(a, outside, (sessionId) =>
        a.cdp.answer(
          "Page.setDownloadBehavior",
          { behavior: "allow", downloadPath: outside },
          sessionId,
        ),
      );
      expect(landed.inFolder).toEqual([]);
      expect(landed.downloads, "the session's browserFolder").toEqual(expect.any(String));
      expect(landed.inSession).toHaveLength(1);
    } finally {
      await a.end();
    }
  });

  it("a download the client did not steer lands in the session's folder, which goes with the session", async () => {
    const a = await cdpSession(service);
    let downloads: string | undefined;
    try {
      const landed = await downloadAfter(a, outside, async () => {});
      downloads = landed.downloads;
      expect(landed.downloads, "the session's browserFolder").toEqual(expect.any(String));
      expect(landed.inSession).toHaveLength(1);
    } finally {
      await a.end();
    }
    expect(await readdir(downloads!).catch(() => "gone")).toBe("gone");
  });
});
