/**
 * Which Chromium to start: the option, then CHROME_PATH, then the npm-shipped pack, then a
 * system Chromium or Chrome. The pack is headless-only, so a headful launch skips it.
 */
import { existsSync } from "node:fs";
import { chromiumPack, packAvailable } from "./chromiumPack.js";

export type ExecutableSource = "executablePath" | "CHROME_PATH" | "pack" | "system";

export interface ResolvedExecutable {
  path: string;
  source: ExecutableSource;
  env: Record<string, string>;
}

const SYSTEM_CANDIDATES: Record<string, string[]> = {
  linux: [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
  ],
  darwin: [
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
  ],
  win32: [
    `${process.env.PROGRAMFILES ?? "C:\\Program Files"}\\Google\\Chrome\\Application\\chrome.exe`,
    `${process.env.LOCALAPPDATA ?? ""}\\Google\\Chrome\\Application\\chrome.exe`,
  ],
};

export function systemChromium(): string | undefined {
  return (SYSTEM_CANDIDATES[process.platform] ?? []).find((p) => existsSync(p));
}

export async function resolveExecutable(options: {
  executablePath?: string | undefined;
  headful: boolean;
  env?: NodeJS.ProcessEnv;
}): Promise<ResolvedExecutable> {
  const env = options.env ?? process.env;
  if (options.executablePath) return checked(options.executablePath, "executablePath");
  if (env.CHROME_PATH) return checked(env.CHROME_PATH, "CHROME_PATH");
  if (!options.headful && packAvailable()) {
    const pack = await chromiumPack();
    return { path: pack.executablePath, source: "pack", env: pack.env };
  }
  const system = systemChromium();
  if (system) return { path: system, source: "system", env: {} };
  throw new Error(
    options.headful
      ? "a headful browser (headless: false or devtools: true) needs a system Chromium or Chrome, and none was found; install one or set CHROME_PATH / localBrowserLaunchOptions.executablePath"
      : "no Chromium found: @sparticuz/chromium is not usable on this platform and no system Chromium or Chrome is installed; set CHROME_PATH or localBrowserLaunchOptions.executablePath",
  );
}

function checked(path: string, source: ExecutableSource): ResolvedExecutable {
  if (!existsSync(path)) throw new Error(`${source} points to ${path}, which does not exist`);
  return { path, source, env: {} };
}
