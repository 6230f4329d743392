/**
 * The host's files, read, through the real CDP proxy: a file of the test outside every session
 * (its secret), the service's data folder (the server cache's seal secret, a marker), /tmp (a
 * marker folder) and the browser's own command line (chrome://version). Navigations and new
 * targets to local schemes in any spelling, file inputs from host paths and pages that try
 * file: by a link, a script, a popup, a frame or a redirect: none may show any of them, and
 * what CDP asks is refused with an error naming the method.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerText,
  type CdpClient,
  evaluate,
  navigate,
  openPage,
  pageText,
  refusalPattern,
} from "../../support/cdpClient.js";
import {
  browserFolderOf,
  cdpSession,
  everyDocument,
  pause,
  secretValue,
} from "../../support/sandbox.js";
import { useService } from "../../support/service.js";

// Removed after the service is closed (after-hooks run last-registered first).
const dataDir = mkdtempSync(join(tmpdir(), "wayfarer-sandbox-data-"));
let hostDir = "";
let markerDir = "";
afterAll(async () => {
  for (const dir of [dataDir, hostDir, markerDir]) {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
});
const service = useService({ dataDir });

const SECRET = secretValue("host-file");
const DATA_MARKER = `data-marker-${secretValue("name")}.txt`;
let secretFile = "";
/** What must never cross to a client: file contents, and names only a listing would show. */
const secrets: string[] = [SECRET, DATA_MARKER, "--user-data-dir"];

beforeAll(async () => {
  hostDir = await mkdtemp(join(tmpdir(), "wayfarer-host-"));
  secretFile = join(hostDir, "secret.txt");
  await writeFile(secretFile, SECRET);
  // A folder of /tmp no URL of the test names: only a listing of /tmp shows its name.
  markerDir = await mkdtemp(join(tmpdir(), "wayfarer-listing-marker-"));
  secrets.push(basename(markerDir));
  writeFileSync(join(dataDir, DATA_MARKER), SECRET);
  await mkdir(join(dataDir, "cache"), { recursive: true });
  // The server cache's seal: whoever reads it can forge entries other projects are answered.
  await pause(200);
  try {
    secrets.push(readFileSync(join(dataDir, "cache.secret"), "utf8").trim());
  } catch {
    // No seal written (yet): the marker and the host file stand for the data folder.
  }
});

/** Pages on 127.0.0.1 (which the service's rule lets through) that try file: on their own. */
let pages: Server;
let origin = "";
beforeAll(async () => {
  const html = (body: string) => `<!doctype html><title>attack</title>${body}`;
  pages = createServer((req, res) => {
    const target = `file://${secretFile}`;
    const bodies: Record<string, string> = {
      "/blank": html("<body></body>"),
      "/link": html(
        `<a id="a" href="${target}">x</a><script>document.getElementById("a").click()</script>`,
      ),
      "/location": html(`<script>location = ${JSON.stringify(target)}</script>`),
      "/open": html(`<script>window.open(${JSON.stringify(target)})</script>`),
      "/iframe": html(`<iframe src="${target}"></iframe>`),
      "/fetch": html(
        `<p id="out"></p><script>fetch(${JSON.stringify(target)}).then(r => r.text()).then(t => out.textContent = t, e => out.textContent = "failed")</script>`,
      ),
    };
    if (req.url === "/redirect") return void res.writeHead(302, { location: target }).end();
    const body = bodies[req.url ?? ""];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html" }).end(body);
  });
  await new Promise<void>((done) => pages.listen(0, "127.0.0.1", () => done()));
  origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
});
afterAll(async () => {
  pages.closeAllConnections();
  await new Promise((done) => pages.close(done));
});

/** Which secrets a text holds. */
const leaked = (texts: string[]) => secrets.filter((s) => texts.some((t) => t.includes(s)));

/** Nothing the client was sent, nor any document of the browser, holds a secret. */
async function expectNothingShown(cdp: CdpClient) {
  const documents = await everyDocument(cdp);
  expect(leaked(documents.map((d) => d.text)), "what the browser's documents show").toEqual([]);
  expect(
    documents.map((d) => d.url).filter((u) => /^(file|chrome|view-source|devtools):/i.test(u)),
    "documents of local schemes",
  ).toEqual([]);
  expect(leaked(cdp.received), "what the client was sent").toEqual([]);
}

/** The local URLs a caller may try, each spelled as Chromium would still open it. */
const localUrls = () => [
  `file://${secretFile}`,
  `FILE://${secretFile}`,
  ` file://${secretFile}`,
  `file:${secretFile}`,
  `file://localhost${secretFile}`,
  `fi\tle://${secretFile}`,
  `\nfile://${secretFile}`,
  `file:${secretFile.replaceAll("/", "\\")}`,
  `filesystem:file://${secretFile}`,
  `javascript:location=${JSON.stringify(`file://${secretFile}`)}`,
  `file://${dataDir}/`,
  `file://${dataDir}/cache.secret`,
  "file:///tmp/",
  `view-source:file://${secretFile}`,
  "chrome://version",
  "about:version",
  "view-source:chrome://version",
  "devtools://devtools/bundled/inspector.html",
];

describe("the host's files, read, through CDP", () => {
  it("refuses Page.navigate to file:, chrome:, view-source: and devtools: in any spelling", async () => {
    const a = await cdpSession(service);
    try {
      const { sessionId } = await openPage(a.cdp);
      const answers: Record<string, string> = {};
      const shown: Record<string, string[]> = {};
      for (const url of localUrls()) {
        answers[url] = answerText(await navigate(a.cdp, sessionId, url, 3_000));
        shown[url] = leaked([await pageText(a.cdp, sessionId)]);
      }
      expect(shown).toEqual(Object.fromEntries(localUrls().map((u) => [u, []])));
      expect(answers).toEqual(
        Object.fromEntries(
          localUrls().map((u) => [u, expect.stringMatching(refusalPattern("Page.navigate"))]),
        ),
      );
      await expectNothingShown(a.cdp);
    } finally {
      await a.end();
    }
  });

  it("refuses Target.createTarget to a local scheme", async () => {
    const a = await cdpSession(service);
    try {
      const answers: Record<string, string> = {};
      for (const url of localUrls()) {
        answers[url] = answerText(await a.cdp.answer("Target.createTarget", { url }));
      }
      await pause(500);
      await expectNothingShown(a.cdp);
      expect(answers).toEqual(
        Object.fromEntries(
          localUrls().map((u) => [u, expect.stringMatching(refusalPattern("Target.createTarget"))]),
        ),
      );
    } finally {
      await a.end();
    }
  });

  it("refuses DOM.setFileInputFiles with a host path, by node id and by object id", async () => {
    const a = await cdpSession(service);
    try {
      const { sessionId } = await openPage(a.cdp, `${origin}/blank`);
      await evaluate(
        a.cdp,
        sessionId,
        `document.body.innerHTML = '<input type="file" id="f">'; true`,
      );
      const { root } = await a.cdp.send("DOM.getDocument", {}, sessionId);
      const { nodeId } = await a.cdp.send(
        "DOM.querySelector",
        { nodeId: root.nodeId, selector: "#f" },
        sessionId,
      );
      const byNode = await a.cdp.answer(
        "DOM.setFileInputFiles",
        { files: [secretFile], nodeId },
        sessionId,
      );
      const { result } = await a.cdp.send(
        "Runtime.evaluate",
        { expression: "document.getElementById('f')" },
        sessionId,
      );
      const byObject = await a.cdp.answer(
        "DOM.setFileInputFiles",
        { files: [secretFile], objectId: result.objectId },
        sessionId,
      );
      const read = await evaluate(
        a.cdp,
        sessionId,
        `(async () => {
          const file = document.getElementById("f").files[0];
          if (!file) return "no file";
          return await new Promise((done) => {
            const reader = new FileReader();
            reader.onload = () => done(String(reader.result));
            reader.onerror = () => done("unreadable");
            reader.readAsText(file);
          });
        })()`,
      );
      expect(leaked([String(read)])).toEqual([]);
      await expectNothingShown(a.cdp);
      expect(answerText(byNode)).toMatch(refusalPattern("DOM.setFileInputFiles"));
      expect(answerText(byObject)).toMatch(refusalPattern("DOM.setFileInputFiles"));
      // A path that starts in the session's own folder and climbs out of it.
      const downloads = join(browserFolderOf(a.session), "downloads");
      const climbing = await a.cdp.answer(
        "DOM.setFileInputFiles",
        { files: [`${downloads}/${relative(downloads, secretFile)}`], nodeId },
        sessionId,
      );
      expect(answerText(climbing)).toMatch(refusalPattern("DOM.setFileInputFiles"));
    } finally {
      await a.end();
    }
  });

  it("does not let a dragged host file be dropped into a page (Input.dispatchDragEvent)", async () => {
    const a = await cdpSession(service);
    try {
      const { sessionId } = await openPage(a.cdp, `${origin}/blank`);
      await evaluate(
        a.cdp,
        sessionId,
        `document.body.innerHTML = '<div id="zone" style="width:400px;height:400px"></div>';
        window.dropped = "nothing";
        const zone = document.getElementById("zone");
        zone.addEventListener("dragover", (e) => e.preventDefault());
        zone.addEventListener("drop", (e) => {
          e.preventDefault();
          const file = e.dataTransfer.files[0];
          window.dropped = file ? "pending" : "no file";
          if (file) file.text().then((t) => (window.dropped = t), () => (window.dropped = "unreadable"));
        });
        true`,
      );
      const data = { items: [], files: [secretFile], dragOperationsMask: 1 };
      const answers: string[] = [];
      for (const type of ["dragEnter", "dragOver", "drop"]) {
        answers.push(
          answerText(
            await a.cdp.answer(
              "Input.dispatchDragEvent",
              { type, x: 100, y: 100, data },
              sessionId,
            ),
          ),
        );
      }
      await pause(500);
      const dropped = String(await evaluate(a.cdp, sessionId, "window.dropped"));
      expect(leaked([dropped])).toEqual([]);
      await expectNothingShown(a.cdp);
      // A drag with files from host paths is refused; one without (Playwright's) is not touched.
      expect(answers[0]).toMatch(refusalPattern("Input.dispatchDragEvent"));
    } finally {
      await a.end();
    }
  });

  it("refuses what tells of the host: SystemInfo.getInfo (its command line), SystemInfo.getProcessInfo", async () => {
    const a = await cdpSession(service);
    try {
      const info = await a.cdp.answer("SystemInfo.getInfo");
      const processes = await a.cdp.answer("SystemInfo.getProcessInfo");
      expect(leaked(a.cdp.received), "what the client was sent").toEqual([]);
      expect(answerText(info)).toMatch(refusalPattern("SystemInfo.getInfo"));
      expect(answerText(processes)).toMatch(refusalPattern("SystemInfo.getProcessInfo"));
    } finally {
      await a.end();
    }
  });

  it("refuses a command wrapped in Target.sendMessageToTarget", async () => {
    const a = await cdpSession(service);
    try {
      const { targetId } = await a.cdp.send("Target.createTarget", { url: "about:blank" });
      const attached = await a.cdp.answer("Target.attachToTarget", { targetId, flatten: false });
      const wrapped = await a.cdp.answer("Target.sendMessageToTarget", {
        sessionId: "result" in attached ? attached.result.sessionId : "none",
        message: JSON.stringify({
          id: 1,
          method: "Page.navigate",
          params: { url: `file://${secretFile}` },
        }),
      });
      await pause(500);
      await expectNothingShown(a.cdp);
      expect(answerText(wrapped)).toMatch(refusalPattern("Target.sendMessageToTarget"));
    } finally {
      await a.end();
    }
  });

  it("refuses a request sent on, or answered, to a file: URL (Fetch.continueRequest, Fetch.fulfillRequest)", async () => {
    const a = await cdpSession(service);
    try {
      const { sessionId } = await openPage(a.cdp, `${origin}/blank`);
      await a.cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*/intercepted*" }] }, sessionId);
      const answers: string[] = [];
      const attempts = [
        ["Fetch.continueRequest", { url: `file://${secretFile}` }],
        [
          "Fetch.fulfillRequest",
          {
            responseCode: 302,
            responseHeaders: [{ name: "Location", value: `file://${secretFile}` }],
          },
        ],
      ] as const;
      for (const [method, params] of attempts) {
        const since = a.cdp.events.length;
        const navigating = navigate(
          a.cdp,
          sessionId,
          `${origin}/intercepted-${answers.length}`,
          3_000,
        );
        const paused = await a.cdp.waitForEvent(
          "Fetch.requestPaused",
          (e) => a.cdp.events.indexOf(e) >= since,
        );
        const requestId = paused.params.requestId as string;
        const answer = await a.cdp.answer(method, { requestId, ...params }, sessionId);
        answers.push(answerText(answer));
        // A refused rewrite leaves the request paused: sent on as it was, to end the navigation.
        if ("error" in answer)
          await a.cdp.answer("Fetch.continueRequest", { requestId }, sessionId);
        await navigating;
      }
      await pause(300);
      await expectNothingShown(a.cdp);
      expect(answers[0]).toMatch(refusalPattern("Fetch.continueRequest"));
      expect(answers[1]).toMatch(refusalPattern("Fetch.fulfillRequest"));
    } finally {
      await a.end();
    }
  });

  it("shows no file: to a page that tries a link, location, window.open, an iframe, fetch or a redirect", async () => {
    const a = await cdpSession(service);
    try {
      const { sessionId } = await openPage(a.cdp);
      const dataPage = `data:text/html,<script>location=${JSON.stringify(`file://${secretFile}`)}</script>`;
      const paths = ["/link", "/location", "/open", "/iframe", "/fetch", "/redirect"];
      for (const url of [...paths.map((p) => `${origin}${p}`), dataPage]) {
        await navigate(a.cdp, sessionId, url, 3_000);
        // What the page starts by itself (a click, a popup, a frame) has its chance.
        await pause(500);
      }
      await expectNothingShown(a.cdp);
    } finally {
      await a.end();
    }
  });
});
