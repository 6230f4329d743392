/**
 * The CDP policy's file rule: a file input or a drop takes files only from the session's own
 * folder, judged on real files and links in a temporary folder (links out, links in, dangling
 * links, a folder holding a link out, a session folder that is itself a link).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CdpScope, judgeCdpCommand } from "../../lib/service/cdpPolicy.js";

const base = mkdtempSync(join(tmpdir(), "wayfarer-cdp-policy-"));
const filesDir = join(base, "session");
const outside = join(base, "outside");
const scope: CdpScope = { downloadsDir: join(filesDir, "downloads"), filesDir };
mkdirSync(join(filesDir, "sub"), { recursive: true });
mkdirSync(join(filesDir, "downloads"));
mkdirSync(join(filesDir, "tree", "deep"), { recursive: true });
mkdirSync(join(filesDir, "leaky", "deep"), { recursive: true });
mkdirSync(outside);
writeFileSync(join(filesDir, "a.txt"), "a");
writeFileSync(join(filesDir, "sub", "b.txt"), "b");
writeFileSync(join(filesDir, "tree", "deep", "c.txt"), "c");
writeFileSync(join(outside, "secret.txt"), "secret");
symlinkSync(join(outside, "secret.txt"), join(filesDir, "out.txt"));
symlinkSync(outside, join(filesDir, "outdir"));
symlinkSync(join(filesDir, "a.txt"), join(filesDir, "in.txt"));
symlinkSync(join(outside, "not-yet.txt"), join(filesDir, "dangling.txt"));
symlinkSync(join(filesDir, "a.txt"), join(filesDir, "tree", "deep", "in.txt"));
symlinkSync(join(outside, "secret.txt"), join(filesDir, "leaky", "deep", "out.txt"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const judge = (method: string, params?: unknown) => judgeCdpCommand(method, params, scope);

function label(method: string, params: unknown): string {
  try {
    return `${method} ${JSON.stringify(params)?.slice(0, 200)}`;
  } catch {
    return method;
  }
}

function expectRefused(method: string, params: unknown, why: string | RegExp) {
  const verdict = judge(method, params);
  expect(verdict, label(method, params)).toMatchObject({
    allow: false,
  });
  const message = verdict.allow ? "" : verdict.message;
  expect(message.startsWith(`Wayfarer refuses ${method}: `)).toBe(true);
  expect(message).toMatch(why);
}

function expectPassed(method: string, params?: unknown) {
  expect(judge(method, params), label(method, params)).toEqual({ allow: true });
}

describe("the CDP policy on files", () => {
  const inside = (...parts: string[]) => join(filesDir, ...parts);

  it.each<[string, RegExp]>([
    ["/etc/passwd", /outside the session's folder; send the file's content instead/],
    [join(outside, "secret.txt"), /outside the session's folder/],
    [inside("..", "outside", "secret.txt"), /outside the session's folder/],
    [`${filesDir}/sub/../../outside/secret.txt`, /outside the session's folder/],
    [`${filesDir}-evil/x.txt`, /outside the session's folder/],
    [inside("out.txt"), /leads outside the session's folder through a link/],
    [inside("outdir", "secret.txt"), /leads outside the session's folder through a link/],
    [inside("outdir", "not-there.txt"), /leads outside the session's folder through a link/],
    [inside("outdir"), /leads outside the session's folder through a link/],
    [inside("dangling.txt"), /goes through a link that does not resolve/],
    [inside("leaky"), /holds a link that leads outside the session's folder/],
    ["a.txt", /not an absolute path/],
    ["./a.txt", /not an absolute path/],
    [`${inside("a.txt")}\0.png`, /NUL character/],
    [filesDir, /holds a link that leads outside the session's folder/],
  ])("refuses a file input from %s", (path, why) => {
    expectRefused("DOM.setFileInputFiles", { objectId: "O1", files: [inside("a.txt"), path] }, why);
    expectRefused(
      "Input.dispatchDragEvent",
      { type: "drop", x: 1, y: 1, data: { items: [], files: [path], dragOperationsMask: 1 } },
      why,
    );
  });

  it("passes files and folders of the session's own folder, links that stay inside included", () => {
    const files = [
      inside("a.txt"),
      inside("sub", "b.txt"),
      inside("sub", "..", "a.txt"),
      inside("in.txt"),
      inside("tree"),
      inside("downloads", "not-yet.bin"),
      `${inside("tree")}/`,
      inside("tree", "deep", "in.txt"),
    ];
    expectPassed("DOM.setFileInputFiles", { objectId: "O1", files });
    expectPassed("Input.dispatchDragEvent", {
      type: "drop",
      x: 1,
      y: 1,
      data: { items: [], files, dragOperationsMask: 1 },
    });
  });

  it("takes a session folder that is itself behind a link by either of its names", () => {
    const linked = join(base, "linked-session");
    symlinkSync(join(filesDir, "sub"), linked);
    const viaLink = { downloadsDir: join(linked, "downloads"), filesDir: linked };
    const files = [join(linked, "b.txt"), inside("sub", "b.txt"), linked];
    expect(judgeCdpCommand("DOM.setFileInputFiles", { files }, viaLink)).toEqual({ allow: true });
    const refused = judgeCdpCommand("DOM.setFileInputFiles", { files: [inside("a.txt")] }, viaLink);
    expect(refused).toMatchObject({ allow: false });
  });

  it("refuses a file list it cannot check in bounds", () => {
    expectRefused(
      "DOM.setFileInputFiles",
      { files: Array(1001).fill(inside("a.txt")) },
      /params\.files/,
    );
    expectRefused("DOM.setFileInputFiles", { files: [inside("a.txt"), 7] }, /params\.files\.1/);
    expectRefused("DOM.setFileInputFiles", { files: [`/${"x".repeat(5000)}`] }, /longer than 4096/);
    expectRefused("DOM.setFileInputFiles", { files: inside("a.txt") }, /params\.files/);
    expectRefused(
      "Input.dispatchDragEvent",
      { data: { files: "/etc/passwd" } },
      /params\.data\.files/,
    );
  });
});
