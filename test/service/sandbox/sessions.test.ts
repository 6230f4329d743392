/**
 * Other sessions: project b, with a session of its own, tries every path to project a's browser,
 * files and cache. Its tokens open nothing of a's, a's token is dead once a's session ended, a's
 * browser listens on no port (CDP over a pipe: no DevToolsActivePort, nothing for a page to
 * scan), and a's folder and the server cache are out of reach of b's pages and CDP commands.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerText,
  CdpRefused,
  connectCdp,
  evaluate,
  navigate,
  openPage,
  refusalPattern,
} from "../../support/cdpClient.js";
import { failure } from "../../support/failure.js";
import { commandLine } from "../../support/processes.js";
import {
  type CdpSession,
  cdpSession,
  everyDocument,
  listeningPorts,
  pause,
  secretValue,
} from "../../support/sandbox.js";
import { KEYS, useService } from "../../support/service.js";

const dataDir = mkdtempSync(join(tmpdir(), "wayfarer-sandbox-data-"));
afterAll(() => rm(dataDir, { recursive: true, force: true }));
const service = useService({ dataDir });
const cacheDir = join(dataDir, "cache");

/** What a's page shows, a file in a's profile, and an entry of a's in the server cache. */
const A_PAGE = secretValue("a-page");
const A_FILE = secretValue("a-file");
const A_CACHED = secretValue("a-cached");
/** An entry no URL of the test names: only a listing of the cache shows its name. */
const A_LISTED = `${secretValue("a-listed")}.txt`;
beforeAll(async () => {
  await mkdir(cacheDir, { recursive: true });
  writeFileSync(join(cacheDir, "a-entry.txt"), A_CACHED);
  writeFileSync(join(cacheDir, A_LISTED), A_CACHED);
});

/** A session of each project; a's page shows A_PAGE. */
async function twoProjects(): Promise<{ a: CdpSession; b: CdpSession; aProfile: string }> {
  const a = await cdpSession(service, KEYS.alpha);
  const b = await cdpSession(service, KEYS.beta).catch(async (error: unknown) => {
    await a.end();
    throw error;
  });
  const { sessionId } = await openPage(a.cdp, `data:text/html,<p>${A_PAGE}</p>`);
  expect(await evaluate(a.cdp, sessionId, "document.body.innerText")).toBe(A_PAGE);
  const profile = commandLine(a.session.browserPid!)
    .find((arg) => arg.startsWith("--user-data-dir="))!
    .slice("--user-data-dir=".length);
  return { a, b, aProfile: profile };
}

const endBoth = async (s: { a: CdpSession; b: CdpSession }) => {
  await s.b.end();
  await s.a.end();
};

describe("project b against project a's browser", () => {
  it("b's token opens nothing of a's, and a's token is dead once a's session ended", async () => {
    const s = await twoProjects();
    const bUrl = await s.b.newConnectUrl();
    const aUrl = await s.a.newConnectUrl();
    try {
      const crossed = bUrl.replace(`/sessions/${s.b.id}/`, `/sessions/${s.a.id}/`);
      expect(crossed).not.toBe(bUrl);
      const refused = await failure(connectCdp(crossed));
      expect(refused).toBeInstanceOf(CdpRefused);
      expect((refused as CdpRefused).status).toBe(401);
    } finally {
      await endBoth(s);
    }
    // Minted while a lived, never used: dead with a's session all the same.
    for (const url of [aUrl, s.a.connectUrl]) {
      const late = await failure(connectCdp(url));
      expect((late as CdpRefused).status, url.replace(/token=.*/, "token=…")).toBe(401);
    }
  });

  it("a's browser listens on no TCP port and writes no DevToolsActivePort", async () => {
    const s = await twoProjects();
    try {
      for (const { session } of [s.a, s.b]) {
        expect(listeningPorts(session.browserPid!), `session ${session.id}`).toEqual([]);
      }
      expect(existsSync(join(s.aProfile, "DevToolsActivePort"))).toBe(false);
    } finally {
      await endBoth(s);
    }
  });

  it("b's page, scanning a's browser's loopback ports, reaches nothing of a's", async () => {
    const s = await twoProjects();
    try {
      const ports = listeningPorts(s.a.session.browserPid!).map((p) => p.port);
      const { sessionId } = await openPage(s.b.cdp, "about:blank");
      const found: string[] = [];
      for (const port of ports) {
        // What b could do with a's DevTools port: open its list of a's pages (same origin,
        // so readable), then a page's WebSocket (any origin allowed) and read it.
        await navigate(s.b.cdp, sessionId, `http://127.0.0.1:${port}/json/list`, 3_000);
        const stolen = await evaluate(
          s.b.cdp,
          sessionId,
          `(async () => {
            try {
              const list = JSON.parse(document.body.innerText);
              const page = list.find((t) => t.type === "page" && t.url.startsWith("data:"));
              if (!page) return "listed: " + JSON.stringify(list);
              const ws = new WebSocket(page.webSocketDebuggerUrl);
              await new Promise((opened, failed) => { ws.onopen = opened; ws.onerror = failed; });
              ws.send(JSON.stringify({ id: 1, method: "Runtime.evaluate",
                params: { expression: "document.body.innerText", returnByValue: true } }));
              return await Promise.race([
                new Promise((answered) => { ws.onmessage = (m) => answered(String(m.data)); }),
                new Promise((late) => setTimeout(() => late("no answer"), 3000)),
              ]);
            } catch (error) {
              return "failed: " + error + " on " + document.body?.innerText.slice(0, 200);
            }
          })()`,
        );
        found.push(`${port}: ${String(stolen)}`);
      }
      expect(found.filter((f) => f.includes(A_PAGE) || f.includes("listed:"))).toEqual([]);
      expect(s.b.cdp.received.filter((t) => t.includes(A_PAGE))).toEqual([]);
      expect(ports).toEqual([]);
    } finally {
      await endBoth(s);
    }
  });

  it("b reads nothing of a's folder or of the server cache, and writes nothing there", async () => {
    const s = await twoProjects();
    try {
      writeFileSync(join(s.aProfile, "a-marker.txt"), A_FILE);
      const urls = [
        `file://${join(s.aProfile, "a-marker.txt")}`,
        `file://${join(s.aProfile, "DevToolsActivePort")}`,
        `file://${s.aProfile}/`,
        `file://${dirname(s.aProfile)}/`,
        `file://${cacheDir}/`,
        `file://${join(cacheDir, "a-entry.txt")}`,
      ];
      const { sessionId } = await openPage(s.b.cdp);
      const answers: Record<string, string> = {};
      for (const url of urls) {
        answers[url] = answerText(await navigate(s.b.cdp, sessionId, url, 3_000));
        answers[`new target ${url}`] = answerText(
          await s.b.cdp.answer("Target.createTarget", { url }),
        );
      }
      // A download steered into a's profile and into the server cache.
      for (const folder of [s.aProfile, cacheDir]) {
        await s.b.cdp.answer("Browser.setDownloadBehavior", {
          behavior: "allow",
          downloadPath: folder,
        });
        await navigate(s.b.cdp, sessionId, "about:blank");
        await evaluate(
          s.b.cdp,
          sessionId,
          `(() => { const a = document.createElement("a");
            a.href = URL.createObjectURL(new Blob(["from b"])); a.download = "from-b.json";
            document.body.append(a); a.click(); return true; })()`,
        );
      }
      await pause(1_500);
      const documents = await everyDocument(s.b.cdp);
      const texts = [...documents.map((d) => d.text), ...s.b.cdp.received];
      expect([A_FILE, A_CACHED, A_LISTED].filter((v) => texts.some((t) => t.includes(v)))).toEqual(
        [],
      );
      expect((await readdir(s.aProfile)).filter((n) => n.startsWith("from-b"))).toEqual([]);
      expect((await readdir(cacheDir)).sort()).toEqual([A_LISTED, "a-entry.txt"].sort());
      for (const [url, answer] of Object.entries(answers)) {
        const method = url.startsWith("new target ") ? "Target.createTarget" : "Page.navigate";
        expect(answer, url).toMatch(refusalPattern(method));
      }
    } finally {
      await endBoth(s);
    }
  });
});
