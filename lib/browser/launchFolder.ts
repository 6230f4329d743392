/**
 * The folder of one launch: the temporary profile and Chromium's own temp files (its TMPDIR).
 * It goes in the system temp dir, unless that dir's path is too long for the socket Chromium
 * keeps in its own temp dir: then it goes in /tmp.
 *
 * A system Chromium or Chrome binds its singleton socket at
 * `<its TMPDIR>/org.chromium.Chromium.XXXXXX/SingletonSocket` and aborts at start ("Socket path
 * too long") when that path does not fit a Unix socket address. macOS's own temp dir
 * (`/var/folders/…/T/`, about 49 characters) is already too long for it.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LaunchFolder {
  /** Ours to remove once the browser has ended. */
  dir: string;
  /** What the browser gets as TMPDIR: `tmp/` inside `dir`. */
  browserTmp: string;
  /** Where the browser's downloads go: `downloads/` inside `dir`. */
  downloads: string;
  remove(): Promise<void>;
}

const PREFIX = "wayfarer-";
/** A socket address holds 108 bytes on Linux and 104 on macOS and the BSDs, NUL included. */
const socketPathMax = (platform: NodeJS.Platform) => (platform === "linux" ? 107 : 103);
/**
 * What Chromium appends to its TMPDIR: `/<folder>/SingletonSocket`. The folder is
 * `org.chromium.Chromium.XXXXXX` (28 characters) for Chromium and shorter for Chrome; we leave
 * room for 40, for other brands.
 */
const SOCKET_SUFFIX = "/".length + 40 + "/SingletonSocket".length;
/** Short, and on every system whose Chromium uses a Unix socket. */
const SHORT_BASE = "/tmp";

/** Where launch folders go under the temp dir `temp`. */
export function launchFolderBase(temp: string, platform = process.platform): string {
  // Windows' Chromium finds a running instance without a socket.
  if (platform === "win32") return temp;
  const browserTmp = join(temp, `${PREFIX}XXXXXX`, "tmp");
  const fits = Buffer.byteLength(browserTmp) + SOCKET_SUFFIX <= socketPathMax(platform);
  return fits ? temp : SHORT_BASE;
}

/** Creates a launch folder, private to us (mkdtemp makes it 0700), with `tmp/` and `downloads/`. */
export async function createLaunchFolder(): Promise<LaunchFolder> {
  const temp = tmpdir();
  const base = launchFolderBase(temp);
  // A /tmp we cannot write to: the temp dir as given. A pack's Chromium starts there anyway
  // (it has no singleton socket); a system one fails with its "Socket path too long".
  const dir = await mkdtemp(join(base, PREFIX)).catch((error: unknown) => {
    if (base === temp) throw error;
    return mkdtemp(join(temp, PREFIX));
  });
  const remove = () => rm(dir, { recursive: true, force: true, maxRetries: 5 });
  const browserTmp = join(dir, "tmp");
  const downloads = join(dir, "downloads");
  await Promise.all([mkdir(browserTmp, 0o700), mkdir(downloads, 0o700)]).catch(
    async (error: unknown) => {
      await remove();
      throw error;
    },
  );
  return { dir, browserTmp, downloads, remove };
}
