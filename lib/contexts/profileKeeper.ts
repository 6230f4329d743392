/**
 * What a session's browser does with a context: its profile unpacked into the browser's (empty)
 * profile folder before the browser starts, and, when the context persists, packed and saved
 * once the browser has ended by itself after being asked to close (a browser killed leaves the
 * previous version). Chromium keeps no session cookie (one without an expiry) on disk: those are
 * read over CDP before the close, kept in the profile as a file of ours, and set again once the
 * next browser is connected.
 */
import { chown, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { packProfile, unpackProfile } from "./profileArchive.js";

/** Our file in the profile: the session cookies of the last close. */
const SESSION_COOKIES = "wayfarer-session-cookies.json";

export interface ProfileKeeper {
  /** Before the browser starts: the context's profile into its folder (given to `owner`). */
  restore(profileDir: string, owner?: { uid: number; gid: number }): Promise<void>;
  /** Once connected: the session cookies of the last close, set again. */
  connected(browser: Browser): Promise<void>;
  /** Before a close that asks the browser: its session cookies, read. */
  closing(browser: Browser): Promise<void>;
  /** After the browser ended by itself: the profile packed and saved (when it persists). */
  ended(profileDir: string): Promise<void>;
  /** Whether `ended` saves: the session's end asks the browser to close rather than kill it. */
  readonly persists: boolean;
}

type Cookie = Record<string, unknown> & { session?: boolean };

export function profileKeeper(
  archive: Buffer,
  save: ((archive: Buffer) => Promise<void>) | undefined,
  warn: (line: string) => void,
): ProfileKeeper {
  let restored: Cookie[] = [];
  let closingCookies: Cookie[] | undefined;
  return {
    persists: save !== undefined,
    async restore(profileDir, owner) {
      await unpackProfile(archive, profileDir);
      const kept = await readFile(join(profileDir, SESSION_COOKIES), "utf8").catch(() => "");
      await rm(join(profileDir, SESSION_COOKIES), { force: true });
      try {
        restored = kept ? (JSON.parse(kept) as Cookie[]).filter(isCookie) : [];
      } catch {
        restored = [];
      }
      if (owner) await chownAll(profileDir, owner.uid, owner.gid);
    },
    async connected(browser) {
      if (!restored.length) return;
      const cdp = await browser.newBrowserCDPSession();
      try {
        // Cookies as Storage.getCookies gave them: CDP takes back what it answered.
        await cdp.send("Storage.setCookies", { cookies: restored } as never);
      } finally {
        await cdp.detach().catch(() => {});
      }
    },
    async closing(browser) {
      if (!save) return;
      const cdp = await browser.newBrowserCDPSession();
      try {
        const { cookies } = await cdp.send("Storage.getCookies");
        closingCookies = (cookies as unknown as Cookie[]).filter((c) => c.session === true);
      } catch (error) {
        warn(`the session cookies could not be read for the context: ${String(error)}`);
      } finally {
        await cdp.detach().catch(() => {});
      }
    },
    async ended(profileDir) {
      if (!save) return;
      try {
        if (closingCookies?.length) {
          await writeFile(join(profileDir, SESSION_COOKIES), JSON.stringify(closingCookies));
        }
        await save(await packProfile(profileDir));
      } catch (error) {
        warn(`the context was not saved (its previous version is kept): ${String(error)}`);
      }
    },
  };
}

const isCookie = (value: unknown): value is Cookie =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Cookie).name === "string" &&
  typeof (value as Cookie).value === "string" &&
  typeof (value as Cookie).domain === "string";

async function chownAll(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await chownAll(path, uid, gid);
    else if (entry.isFile()) await chown(path, uid, gid);
  }
}
