/**
 * `npm run docs`: writes docs/reference/ from the code. Each file is written whole through a
 * temporary file and a rename, so an interrupted run never leaves half a page.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { generatedReference, ROOT } from "./reference.js";

for (const { path, text } of generatedReference()) {
  const target = join(ROOT, path);
  let current: string | undefined;
  try {
    current = readFileSync(target, "utf8");
  } catch {}
  if (current === text) continue;
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(`${target}.tmp`, text);
  renameSync(`${target}.tmp`, target);
  console.log(`wrote ${path}`);
}
