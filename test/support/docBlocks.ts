/**
 * Type-checks the TypeScript code blocks (```ts, ```typescript) of Markdown files in-process, all
 * in one ts.Program with the repository's compiler options, through a virtual CompilerHost:
 * nothing is written to disk.
 *
 * Where a block sits: each block is its own module (top-level await allowed), placed virtually
 * at the repository root, whatever Markdown file it is in, so `import … from "./lib/index.js"`
 * works in every file. A block whose first line is a comment naming a .ts path (as
 * `// test/shop/cart.test.ts`) sits in that path's folder instead, so a test-file example can
 * import `../support/llm/modelServer.js` as a real test would. There is no prelude: a block
 * declares or imports every name it uses.
 */
import { dirname, join } from "node:path";
import ts from "typescript";

export interface CodeBlock {
  /** The Markdown file, relative to the root (as reported). */
  file: string;
  /** 1-based line of the opening fence in the Markdown file. */
  line: number;
  code: string;
}

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/;
const TS = new Set(["ts", "typescript"]);
const PLACED = /^\/\/\s*((?:[\w.-]+\/)*[\w.-]+\.tsx?)\s*$/;
/** Files on disk, parsed once per process and shared by every check (each check is a program). */
const onDisk = new Map<string, ts.SourceFile | undefined>();

/** The TypeScript blocks of a Markdown text, with their fence's line. */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent = "", fence = "", lang = ""] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      // Content indented like its fence (in a list item) loses that indentation.
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    if (TS.has(lang.toLowerCase())) blocks.push({ file, line: i + 1, code: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** The compiler options of the tsconfig.json in `root`. */
export function compilerOptions(root: string): ts.CompilerOptions {
  const path = join(root, "tsconfig.json");
  const read = ts.readConfigFile(path, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, path);
  return { ...parsed.options, noEmit: true, moduleDetection: ts.ModuleDetectionKind.Force };
}

/**
 * Every diagnostic of the blocks, one line each: "file:line (block at line N): TSxxxx message",
 * where line is the diagnostic's line in the Markdown file. Empty when every block compiles.
 */
export function checkBlocks(
  root: string,
  blocks: CodeBlock[],
  options = compilerOptions(root),
): string[] {
  const virtual = new Map<string, { block: CodeBlock; text: string }>();
  blocks.forEach((block, n) => {
    const placed = PLACED.exec(block.code.split("\n", 1)[0]!)?.[1];
    const folder = placed ? join(root, dirname(placed)) : root;
    // The name only has to be unique: imports resolve from the folder.
    const path = join(folder, `__docblock${n}.ts`).replaceAll("\\", "/");
    virtual.set(path, { block, text: block.code });
  });

  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name)?.text ?? readFile.call(host, name);
  host.getSourceFile = (name, version, onError, create) => {
    const entry = virtual.get(name);
    if (entry) return ts.createSourceFile(name, entry.text, version, true);
    if (!onDisk.has(name))
      onDisk.set(name, getSourceFile.call(host, name, version, onError, create));
    return onDisk.get(name);
  };

  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const problems = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(
    (d) => `tsconfig.json: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`,
  );
  for (const [path, { block }] of virtual) {
    const source = program.getSourceFile(path)!;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    for (const d of diagnostics) {
      const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      const message = ts.flattenDiagnosticMessageText(d.messageText, " ");
      problems.push(
        `${block.file}:${block.line + 1 + at} (block at line ${block.line}): TS${d.code} ${message}`,
      );
    }
  }
  return problems;
}
