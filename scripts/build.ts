/**
 * `npm run build` (and `prepare`, so `npm ci` builds): the service and the MCP server as built
 * JavaScript in dist/, so that they start without tsx. One ESM bundle per entry, of its main.ts
 * and everything of lib/ it imports (dist/service.js, dist/mcp.js, with source maps: stack traces
 * name the .ts lines); packages stay in node_modules, loaded as they are. dist/wayfarer-service.js
 * and dist/wayfarer-mcp.js are the entries, run by node or by bin/wayfarer-service and
 * bin/wayfarer-mcp; dist/build.json stamps every file either build read, so that a stale build
 * of either is never run (bin/currentBuild.js).
 */
import { readFileSync, statSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { build, version as esbuildVersion, type Plugin } from "esbuild";
import {
  BUILT_ENTRY,
  BUILT_MCP_ENTRY,
  type BuildInput,
  type BuildStamp,
  buildState,
  MCP_SOURCE_ENTRY,
  SOURCE_ENTRY,
  STAMP,
  STAMP_VERSION,
  sha256,
} from "../bin/currentBuild.js";

const ROOT = join(import.meta.dirname, "..");
/** Read by esbuild besides the sources (the TypeScript settings), or shaping the output. */
const SETTINGS = ["tsconfig.json", relative(ROOT, import.meta.filename)];

/**
 * Each entry: its source, its bundle's name in dist/, and the file that runs it. Two bundles,
 * not one split in shared chunks: each stays one file whose functions keep their own names
 * (the service's build test reads dist/service.js for them), at the price of lib/'s common
 * code twice on disk.
 */
const ENTRIES = [
  { source: SOURCE_ENTRY, bundle: "service", entry: BUILT_ENTRY, what: "The service" },
  { source: MCP_SOURCE_ENTRY, bundle: "mcp", entry: BUILT_MCP_ENTRY, what: "The MCP server" },
  {
    source: join("lib", "browser", "egressWorker.ts"),
    bundle: "egress",
    entry: join("dist", "wayfarer-egress.js"),
    what: "The egress guard's worker (started by the service as root)",
  },
];

/**
 * An entry. Source maps stay off unless asked for (NODE_OPTIONS=--enable-source-maps): with them
 * on, Node maps every stack it formats through the map of each file in it, packages' too, and
 * Playwright formats one on every call (about 5 % of the service's CPU; its first model answer
 * paid 150 ms for the AI SDK's maps). docs/guide/operations.md says how to turn them on.
 */
const entryText = (e: (typeof ENTRIES)[number]) =>
  `// Built by scripts/build.ts (esbuild ${esbuildVersion}). ${e.what}: node ${e.entry}
// Where the built entries are: the service starts the egress worker's from here.
globalThis.__wayfarerBuilt = import.meta.dirname;
await import("./${e.bundle}.js");
`;

/** What a module's import.meta says in the bundle: its own source file's place, not dist/'s. */
function asSourcePlace(root: string, file: string, text: string): string {
  if (!text.includes("import.meta.")) return text;
  const place = `__wayfarerJoin(import.meta.dirname, ${JSON.stringify(relative(join(root, "dist"), file))})`;
  // Prepended to the first line, so every line of the module keeps its number in the map.
  return (
    'import { dirname as __wayfarerDirname, join as __wayfarerJoin } from "node:path"; import { pathToFileURL as __wayfarerFileUrl } from "node:url"; ' +
    text
      .replaceAll("import.meta.dirname", `__wayfarerDirname(${place})`)
      .replaceAll("import.meta.filename", place)
      .replaceAll("import.meta.url", `__wayfarerFileUrl(${place}).href`)
  );
}

/**
 * Reads each source for esbuild, recording what it read: the stat taken before reading and the
 * hash of the bytes compiled, so an edit during the build leaves a stamp that no longer matches.
 */
function recordingSources(root: string, inputs: Record<string, BuildInput>): Plugin {
  return {
    name: "wayfarer-sources",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const { size, mtimeMs } = statSync(args.path);
        const bytes = readFileSync(args.path);
        inputs[relative(root, args.path)] = { size, mtimeMs, sha256: sha256(bytes) };
        return { contents: asSourcePlace(root, args.path, bytes.toString("utf8")), loader: "ts" };
      });
    },
  };
}

/** Writes beside, then renames: a service starting meanwhile reads the old file or the new. */
async function writeAtomically(file: string, contents: string | Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const part = `${file}.${process.pid}.part`;
  await writeFile(part, contents);
  await rename(part, file);
}

export interface Built {
  ms: number;
  /** Files of lib/ (and the settings) the bundles were made from. */
  inputs: number;
  bytes: number;
}

/** Builds dist/ from the sources of `root`. */
export async function buildDist(root = ROOT): Promise<Built> {
  const started = performance.now();
  // Until a new stamp is written, no build here is taken as current (a failed one included).
  await rm(join(root, STAMP), { force: true });
  const inputs: Record<string, BuildInput> = {};
  for (const file of SETTINGS) {
    const { size, mtimeMs } = statSync(join(root, file));
    inputs[file] = { size, mtimeMs, sha256: sha256(readFileSync(join(root, file))) };
  }
  const result = await build({
    absWorkingDir: root,
    entryPoints: ENTRIES.map((e) => ({ in: e.source, out: e.bundle })),
    outdir: "dist",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Loaded from node_modules at run time: a dependency updated by npm needs no new build, and
    // what an idle service never imports (playwright-core, the model providers) costs nothing.
    packages: "external",
    // As tsx runs the sources: class and function names kept (errors are known by them).
    keepNames: true,
    sourcemap: "linked",
    // The map points at lib/, which is where a reader looks; it need not carry a copy.
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: "warning",
    plugins: [recordingSources(root, inputs)],
  });
  const unrecorded = Object.keys(result.metafile.inputs).filter((file) => !(file in inputs));
  if (unrecorded.length > 0) {
    throw new Error(`the build read files it cannot stamp: ${unrecorded.join(", ")}`);
  }
  let bytes = 0;
  for (const out of result.outputFiles) {
    bytes += out.contents.byteLength;
    await writeAtomically(out.path, out.contents);
  }
  for (const e of ENTRIES) await writeAtomically(join(root, e.entry), entryText(e));
  const stamp: BuildStamp = { version: STAMP_VERSION, inputs };
  // Last: until the stamp is written, the build is not taken as current.
  await writeAtomically(join(root, STAMP), `${JSON.stringify(stamp, null, 1)}\n`);
  return { ms: performance.now() - started, inputs: Object.keys(inputs).length, bytes };
}

/** Builds unless dist/ already holds the build of the current sources; true when it built. */
export async function ensureBuilt(root = ROOT): Promise<boolean> {
  if (buildState(root).current) return false;
  await buildDist(root);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const built = await buildDist();
  console.log(
    `built ${BUILT_ENTRY} and ${BUILT_MCP_ENTRY} from ${built.inputs} files in ${Math.round(built.ms)} ms (${(built.bytes / 1e6).toFixed(1)} MB with their maps)`,
  );
}
