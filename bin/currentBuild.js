/**
 * Whether dist/ holds the build of this checkout's sources as they are now (scripts/build.ts):
 * the build stamps every file it read (size, mtime, SHA-256 of the bytes it compiled), and a
 * file whose size or hash differs makes the build stale. mtime alone only spares the hashing: a
 * checkout, a copy or `touch` changes it without changing the source. Plain JavaScript, so the
 * executable entry can ask without tsx; typed by currentBuild.d.ts.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";

/** The stamp's layout; a build of another layout is stale (2: the MCP server joined it). */
export const STAMP_VERSION = 2;
/** One stamp for both entries: a build is current for both or for neither. */
export const STAMP = join("dist", "build.json");
/** The built entry: `node dist/wayfarer-service.js` runs the service. */
export const BUILT_ENTRY = join("dist", "wayfarer-service.js");
/** The service's source; a tree without it (a deployment of dist/ alone) has only the build. */
export const SOURCE_ENTRY = join("lib", "service", "main.ts");
/** The MCP server over stdio, built: what bin/wayfarer-mcp runs while the build is current. */
export const BUILT_MCP_ENTRY = join("dist", "wayfarer-mcp.js");
export const MCP_SOURCE_ENTRY = join("lib", "mcp", "main.ts");

export const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** `{ current: true }`, or `{ current: false, why }` saying what makes dist/ unusable. */
export function buildState(root) {
  if (![BUILT_ENTRY, BUILT_MCP_ENTRY].every((entry) => existsSync(join(root, entry)))) {
    return { current: false, why: "no build in dist/" };
  }
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), "utf8"));
  } catch {
    return { current: false, why: `no readable ${STAMP}` };
  }
  const inputs = stamp?.inputs;
  if (
    stamp?.version !== STAMP_VERSION ||
    !inputs ||
    typeof inputs !== "object" ||
    Array.isArray(inputs) ||
    !(SOURCE_ENTRY in inputs)
  ) {
    return { current: false, why: `${STAMP} is of another build script` };
  }
  if (!existsSync(join(root, SOURCE_ENTRY))) return { current: true };
  // The stamp is only the build's word: anything it names that the build would not have written
  // (a path out of the checkout or spelt oddly, a folder, a FIFO, a device) makes it stale, and
  // nothing it names can stop the start (a read that throws is a stale build, not a crash).
  try {
    for (const [file, built] of Object.entries(inputs)) {
      const why = changed(root, file, built);
      if (why) return { current: false, why };
    }
  } catch {
    return { current: false, why: `${STAMP} could not be checked` };
  }
  return { current: true };
}

/** Why `file` makes the build stale, or undefined when it is as the build read it. */
function changed(root, file, built) {
  if (!plainPath(file) || typeof built?.size !== "number" || typeof built.sha256 !== "string") {
    return `${STAMP} names a file the build would not have read`;
  }
  let now;
  try {
    now = lstatSync(join(root, file));
  } catch {
    return `${file} is gone since the build`;
  }
  if (!now.isFile()) return `${file} is not a plain file`;
  if (now.size === built.size && now.mtimeMs === built.mtimeMs) return undefined;
  if (now.size !== built.size || sha256(readFileSync(join(root, file))) !== built.sha256) {
    return `${file} changed since the build`;
  }
  return undefined;
}

/** A path inside the checkout, as the build writes it: relative, normalised, printable. */
function plainPath(file) {
  return (
    file !== "" &&
    !isAbsolute(file) &&
    normalize(file) === file &&
    !file.startsWith("..") &&
    !file.includes("\\") &&
    ![...file].some((c) => c.charCodeAt(0) < 0x20)
  );
}
