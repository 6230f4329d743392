/**
 * The npm-shipped Chromium is unpacked into the temp dir, which other users of the host share.
 * A folder of the pack's name that another user made first (or one anyone may write to, or a
 * link) holds what they chose: it is never run, and this process unpacks a folder of its own.
 */
import { chmodSync, chownSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { chromiumPack, packAvailable } from "../../lib/browser/chromiumPack.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { useTempFolders } from "../support/tempFolders.js";

const tempFolder = useTempFolders();
const VERSION = JSON.parse(
  readFileSync(
    join(import.meta.dirname, "../../node_modules/@sparticuz/chromium/package.json"),
    "utf8",
  ),
).version as string;

let restoreEnv: () => void;
let tmp: string;
beforeEach(() => {
  restoreEnv = restoreEnvAfterwards();
  tmp = tempFolder("wayfarer-test-shared-tmp-");
  process.env.TMPDIR = tmp;
});
afterEach(() => restoreEnv());

/** A folder of the pack's name with a "chromium" in it that is not the pack's. */
function forged(): string {
  const folder = join(tmp, `wayfarer-chromium-${VERSION}`);
  mkdirSync(folder, { mode: 0o755 });
  writeFileSync(join(folder, "chromium"), "#!/bin/sh\nexit 0\n", {
    mode: 0o755,
  });
  return folder;
}

const cases: [string, (folder: string) => void][] = [
  ["another user's", (folder) => chownSync(folder, 54_321, 54_321)],
  ["anyone may write to", (folder) => chmodSync(folder, 0o777)],
];

for (const [whose, make] of cases) {
  it.skipIf(!packAvailable() || (whose === "another user's" && process.getuid?.() !== 0))(
    `never runs the chromium in a folder of its name that ${whose}: it unpacks its own`,
    async () => {
      const folder = forged();
      make(folder);
      const pack = await chromiumPack();
      expect(dirname(pack.executablePath)).not.toBe(folder);
      expect(dirname(pack.executablePath).startsWith(`${folder}-`)).toBe(true);
      expect(readFileSync(pack.executablePath).subarray(0, 4)).toEqual(
        Buffer.from([0x7f, 0x45, 0x4c, 0x46]), // ELF: the pack's binary, not the script
      );
    },
  );
}

it.skipIf(!packAvailable())(
  "never follows a link of the pack's name to another folder",
  async () => {
    const elsewhere = join(tempFolder("wayfarer-test-elsewhere-"), "pack");
    mkdirSync(elsewhere, { mode: 0o755 });
    writeFileSync(join(elsewhere, "chromium"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const link = join(tmp, `wayfarer-chromium-${VERSION}`);
    symlinkSync(elsewhere, link);
    const pack = await chromiumPack();
    expect(pack.executablePath.startsWith(`${link}-`)).toBe(true);
  },
);
