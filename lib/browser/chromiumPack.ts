/**
 * The Chromium that ships inside the @sparticuz/chromium npm package (Linux x64 only).
 * We unpack it ourselves, once, into a folder named after the package version, so two
 * versions never share an unpack and a crash mid-unpack never leaves a half-written binary.
 */
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { extract } from "tar-fs";

export interface ChromiumPack {
  executablePath: string;
  /** Variables the binary needs: its bundled libraries, and fonts where the host has none. */
  env: Record<string, string>;
}

const require = createRequire(import.meta.url);

function packageDir(): string | undefined {
  try {
    // The package's exports hide package.json; its entry point sits at build/cjs/index.cjs.
    return join(dirname(require.resolve("@sparticuz/chromium")), "..", "..");
  } catch {
    return undefined;
  }
}

/** True on hosts modelled on Amazon Linux 2023 that lack Chromium's shared libraries. */
export function onServerlessHost(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.VERCEL || env.AWS_LAMBDA_FUNCTION_NAME || env.AWS_EXECUTION_ENV);
}

export function packAvailable(): boolean {
  return process.platform === "linux" && process.arch === "x64" && packageDir() !== undefined;
}

let unpacked: { tmp: string; pack: Promise<ChromiumPack> } | undefined;

/**
 * Unpacks (first call) or finds (later calls) the pack's Chromium. Safe across processes. A
 * long-running process unpacks again when its temp dir changed or its unpack is gone (a temp
 * cleaner, a reboot's tmpfs): a service would otherwise fail every launch until restarted.
 */
export async function chromiumPack(): Promise<ChromiumPack> {
  const tmp = tmpdir();
  const known = unpacked;
  if (known?.tmp === tmp) {
    // A failed unpack is tried again; a finished one is used while its binary is there.
    const pack = await known.pack.catch(() => undefined);
    if (pack && existsSync(pack.executablePath)) return pack;
  }
  // Callers that found the same stale unpack share one new one.
  if (unpacked === known || unpacked?.tmp !== tmp) unpacked = { tmp, pack: unpack(tmp) };
  return unpacked.pack;
}

async function unpack(tmp: string): Promise<ChromiumPack> {
  const pkg = packageDir();
  if (!pkg || !packAvailable())
    throw new Error("@sparticuz/chromium is not installed or not for this platform");
  const { version } = JSON.parse(await readFile(join(pkg, "package.json"), "utf8")) as {
    version: string;
  };
  let target = join(tmp, `wayfarer-chromium-${version}`);
  // Under a shared temp dir another user may have made a folder of that name first: what it
  // holds is never run; this process unpacks into a folder of its own instead (not shared, so
  // not reused by the next process).
  if (existsSync(target) && !(await ownFolder(target))) target = await mkdtemp(`${target}-`);
  const serverless = onServerlessHost();
  if (!existsSync(join(target, "chromium"))) {
    const staging = `${target}.partial-${process.pid}-${Date.now()}`;
    // Never group- or world-writable, whatever the umask: ownFolder() must accept it.
    await mkdir(staging, { recursive: true, mode: 0o755 });
    try {
      const bin = join(pkg, "bin");
      await Promise.all([
        inflateFile(join(bin, "chromium.br"), join(staging, "chromium")),
        inflateTar(join(bin, "swiftshader.tar.br"), staging),
        inflateTar(join(bin, "fonts.tar.br"), staging),
        inflateTar(join(bin, "al2023.tar.br"), join(staging, "al2023")),
      ]);
      // The pack's own fonts.conf points at /tmp/fonts; ours points at this folder.
      await writeFile(
        join(staging, "fonts.conf"),
        `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${xmlText(join(target, "fonts"))}</dir><cachedir>${xmlText(join(target, "fonts-cache"))}</cachedir></fontconfig>\n`,
      );
      await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
        // Another process of ours finished first: use its unpack.
        if (!existsSync(join(target, "chromium")) || !(await ownFolder(target))) throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  // The binary links only NSS, NSPR and expat beyond libc; the pack carries them, so a machine
  // without a system Chromium's libraries still runs it.
  const env: Record<string, string> = {
    LD_LIBRARY_PATH: [join(target, "al2023", "lib"), process.env.LD_LIBRARY_PATH]
      .filter(Boolean)
      .join(":"),
  };
  // Without a system font configuration, text would render as nothing: use the pack's fonts.
  if (serverless || !existsSync("/etc/fonts/fonts.conf")) env.FONTCONFIG_PATH = target;
  return { executablePath: join(target, "chromium"), env };
}

/** A real folder (no link) of this process's user that no other user may write to. */
async function ownFolder(dir: string): Promise<boolean> {
  const info = await lstat(dir).catch(() => undefined);
  return (
    info?.isDirectory() === true && info.uid === process.getuid?.() && (info.mode & 0o022) === 0
  );
}

async function inflateFile(source: string, destination: string): Promise<void> {
  await pipeline(
    createReadStream(source, { highWaterMark: 1 << 22 }),
    createBrotliDecompress({ chunkSize: 1 << 21 }),
    createWriteStream(destination, { mode: 0o755 }),
  );
}

async function inflateTar(source: string, destination: string): Promise<void> {
  await pipeline(createReadStream(source), createBrotliDecompress(), extract(destination));
}

/** A path as XML text: a TMPDIR may hold `&` or `<`. */
function xmlText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
